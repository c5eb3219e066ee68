// What every arcade stand-in game offers the Decision Transformer study and its data sets: the
// Fourier head paper (Gillman et al., section 5, Table 2) plays four Atari games with the same
// 18-action space (BankHeist, DoubleDunk, Gravitar, Seaquest); no emulator or ROM exists here,
// so each game is a deterministic function of (reset seed, actions) with a feature observation.
//
// A game is played through this interface by the data set generator, the rollouts and the
// demos; its scripted policies see the concrete game (they read its state, not its
// observation). games.h lists the games and builds them by name.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/actions.h"

namespace hm::arcade {

// Settings every game takes.
struct GameConfig {
  int max_steps = 1000;  // episode cap (the episode is truncated, not lost)
  int lives = 3;         // games without lives (DoubleDunk's timed match) ignore it
  bool spawn = true;     // false: nothing enters by itself (tests place entities)
};

// What one step did, in terms every game shares.
struct GameStep {
  double reward = 0;
  bool done = false;       // the episode ended (lives gone, game over or truncation)
  bool truncated = false;  // it ended at max_steps
  bool life_lost = false;
};

// Something a game counts over an episode besides its score (Seaquest's kills and divers
// rescued), for the demo's table.
struct GameTally {
  std::string name;
  int value = 0;
};

class Game {
 public:
  virtual ~Game() = default;
  virtual std::string_view name() const = 0;  // "seaquest", "bankheist", "doubledunk", "gravitar"

  // A new episode; returns the first observation.
  virtual std::vector<float> reset(uint64_t seed) = 0;
  // One step with an action in the paper's order (actions.h), without building the observation
  // (policies simulate on copies). Throws hm::Error for an action outside 0..17 or after the end.
  virtual GameStep advance(int action) = 0;
  virtual std::vector<float> observation() const = 0;  // (observation_size(),)
  virtual int observation_size() const = 0;
  virtual const std::vector<std::string>& observation_names() const = 0;

  // A grayscale frame for pictures, frame_height() x frame_width(), row-major.
  virtual std::vector<uint8_t> render() const = 0;
  virtual int frame_width() const = 0;
  virtual int frame_height() const = 0;

  // A copy at the same state, random stream included (a planner simulates on it).
  virtual std::unique_ptr<Game> clone() const = 0;

  virtual bool done() const = 0;
  virtual double score() const = 0;  // the sum of the rewards so far
  virtual int steps() const = 0;
  virtual int lives() const = 0;  // 0 for games without lives
  // The episode's tallies so far; none unless the game keeps some.
  virtual std::vector<GameTally> tallies() const { return {}; }
};

// A scripted policy of one game. act() reads the concrete game it was made for (games.h's
// make_policy pairs them) and returns an action in the paper's order.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual int act(const Game& game) = 0;
  // A policy's own randomness restarts from (seed, stream) at each episode.
  virtual void reset(uint64_t seed) {}
};

}  // namespace hm::arcade
