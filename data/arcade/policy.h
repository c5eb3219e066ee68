// The policies every game has and the episode loop shared by the demo, the reference returns
// and the tests (games.h builds the policies by spec):
//   random   uniform over the 18 actions (RandomPolicy)
//   noisy    any policy with probability epsilon replaced by a uniform random action (NoisyPolicy)
// and the normalised return 100 (R - random) / (expert - random), the paper's score, with each
// game's "random" and "expert" as the two ends.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/arcade_rng.h"
#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

class RandomPolicy : public Policy {
 public:
  int act(const Game&) override { return rng_.below(kNumActions); }
  void reset(uint64_t seed) override { rng_ = ArcadeRng(seed, /*stream=*/1); }

 private:
  ArcadeRng rng_;
};

// With probability epsilon a uniform random action, else the inner policy's.
class NoisyPolicy : public Policy {
 public:
  NoisyPolicy(std::unique_ptr<Policy> inner, double epsilon);
  int act(const Game& game) override;
  void reset(uint64_t seed) override;

 private:
  std::unique_ptr<Policy> inner_;
  double epsilon_;
  ArcadeRng rng_;
};

// One action as the look-ahead planners of the scripted experts see it: its score and whether
// it keeps every life over the planner's look-ahead.
struct PlannedAction {
  double score = -std::numeric_limits<double>::infinity();
  bool safe = false;
};

// The planners' choice: the highest-scoring action (the lowest index among equals), among the
// safe ones when need_safe; -1 when need_safe and none is safe.
int best_planned_action(const PlannedAction (&actions)[kNumActions], bool need_safe);

// The seed of episode `episode` of a run seeded `seed` (one Philox draw, so runs with nearby
// seeds share no episodes).
uint64_t episode_seed(uint64_t seed, int64_t episode);

struct EpisodeSummary {
  double score = 0;
  int steps = 0;
  int lives_lost = 0;
  std::vector<GameTally> tallies;  // the game's own counts at the episode's end (Game::tallies)
};

// `episodes` episodes of the game `game` played by the policy `spec` (games.h's make_policy);
// episode e uses episode_seed(seed, e) for the game and the policy.
std::vector<EpisodeSummary> play_episodes(std::string_view game, const std::string& spec, int episodes, uint64_t seed,
                                          const GameConfig& config = {});

// The two ends of the normalised return: the mean returns of the game's `random` and `expert`
// over `episodes` episodes each (seeded as play_episodes). 100 episodes of Seaquest take about
// 1.3 s.
struct ReferenceReturns {
  double random = 0, expert = 0;
};
ReferenceReturns reference_returns(std::string_view game, int episodes = 100, uint64_t seed = 0,
                                   const GameConfig& config = {});
double normalized_return(double episode_return, const ReferenceReturns& reference);

}  // namespace hm::arcade
