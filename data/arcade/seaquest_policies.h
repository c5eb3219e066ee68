// Seaquest's scripted policies (seaquest_env.h), for the normalised return and the offline
// data set's behaviour mixture (games.h builds them by spec, "random" and ":<epsilon>" included):
//   expert      picks a target (the surface when oxygen runs low with divers aboard or with 6
//               divers, else the nearest diver, else the nearest enemy's lane), tries each of the
//               18 actions on a copy of the game followed by `lookahead` NOOPs, drops those that
//               lose a life by collision or by surfacing empty, and takes the safe action nearest
//               its target; it fires when an enemy is in its row ahead of it.
//   careless    the same without the look-ahead (it swims into enemies): a weaker policy
#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/seaquest_env.h"

namespace hm::arcade {

struct SeaquestExpertOptions {
  int lookahead = 3;       // NOOP steps simulated after each candidate action; 0: no safety check
  int oxygen_margin = 24;  // surface with divers when oxygen <= steps to the surface + this
};

class SeaquestExpertPolicy : public Policy {
 public:
  explicit SeaquestExpertPolicy(SeaquestExpertOptions options = {}) : options_(options) {}
  int act(const Game& game) override;  // game must be a SeaquestEnv (else hm::Error)
  int act(const SeaquestEnv& env);

 private:
  SeaquestExpertOptions options_;
};

// "expert", "careless"; nullptr for another name (GameInfo::make_scripted).
std::unique_ptr<Policy> make_seaquest_policy(std::string_view name);

// Episode weights: random 0.15, expert:0.75 0.20, expert:0.5 0.20, careless:0.25 0.15,
// expert:0.25 0.10, expert:0.1 0.12, expert:0.03 0.08. Better policies play longer episodes
// (up to the step cap), so the weights are chosen for shares of the *steps* of about 2%, 8%,
// 15%, 15%, 20%, 25%, 15%: returns from 0 to the expert's, mostly from mediocre play, like the
// replay of an agent that is still learning.
std::vector<MixtureComponent> seaquest_default_mixture();

}  // namespace hm::arcade
