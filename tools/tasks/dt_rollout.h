// Online evaluation of a Decision Transformer in an arcade stand-in game (data/arcade): episodes
// played by the model conditioned on a target return, as the Decision Transformer's Atari code
// evaluates (sample the action from the predicted distribution at the latest state token,
// subtract each reward from the return-to-go, keep the last K timesteps as context).
//
// The episodes of one call run side by side as one batch: every step feeds the still-running
// games' windows through the model at once (they are in lockstep, so their windows have the
// same length), which is ~episodes times faster than one game at a time and plays the same
// games (each game's randomness is its own: env seed episode_seed(seed, e), action draws from a
// Philox stream of (seed, e)).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harmonic/data/arcade/game.h"
#include "harmonic/models/decision_transformer.h"

namespace hm::train {

struct DtRolloutOptions {
  int64_t episodes = 10;
  uint64_t seed = 0;
  double target_return = 0;       // the return the model is asked for (unscaled game points)
  double rtg_scale = 1.0;         // the return-to-go the model sees is rtg / rtg_scale (as in training)
  double temperature = 1.0;       // 0: greedy
  std::string game = "seaquest";  // a games.h name; its observation size must be the model's state_dim
  arcade::GameConfig env;
};

struct DtRolloutResult {
  std::vector<double> returns;  // one per episode, in episode order
  std::vector<int64_t> steps;
  // Action histogram over every step of every episode (18 counts), for the report.
  std::vector<int64_t> action_counts;
};

// Plays options.episodes games with dt (switched to eval mode; no gradients).
DtRolloutResult rollout_decision_transformer(models::DecisionTransformer& dt, const DtRolloutOptions& options);

}  // namespace hm::train
