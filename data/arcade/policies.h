// Policies that play the Seaquest stand-in (seaquest_env.h), for the normalised return
// 100 (R - random) / (expert - random) and for the offline data set's behaviour mixture.
//   random      uniform over the 18 actions
//   expert      scripted: picks a target (the surface when oxygen runs low with divers aboard or
//               with 6 divers, else the nearest diver, else the nearest enemy's lane), tries each
//               of the 18 actions on a copy of the game followed by `lookahead` NOOPs, drops those
//               that lose a life by collision or by surfacing empty, and takes the safe action
//               nearest its target; it fires when an enemy is in its row ahead of it.
//   careless    the same without the look-ahead (it swims into enemies): a weaker policy
//   noisy       any of these with probability epsilon replaced by a uniform random action
// Policy specs (make_policy): "random", "expert", "careless", each optionally ":<epsilon>"
// ("expert:0.1").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/data/arcade/arcade_rng.h"
#include "harmonic/data/arcade/seaquest_env.h"

namespace hm::arcade {

class Policy {
 public:
  virtual ~Policy() = default;
  // The action (paper order) for the game's current state. Policies read the game itself,
  // not its observation: they are scripted, not learned.
  virtual int act(const SeaquestEnv& env) = 0;
  // A policy's own randomness restarts from (seed, stream) at each episode.
  virtual void reset(uint64_t seed) {}
};

class RandomPolicy : public Policy {
 public:
  int act(const SeaquestEnv& env) override { return rng_.below(kNumActions); }
  void reset(uint64_t seed) override { rng_ = ArcadeRng(seed, /*stream=*/1); }

 private:
  ArcadeRng rng_;
};

struct ExpertOptions {
  int lookahead = 3;       // NOOP steps simulated after each candidate action; 0: no safety check
  int oxygen_margin = 24;  // surface with divers when oxygen <= steps to the surface + this
};

class ExpertPolicy : public Policy {
 public:
  explicit ExpertPolicy(ExpertOptions options = {}) : options_(options) {}
  int act(const SeaquestEnv& env) override;

 private:
  ExpertOptions options_;
};

// With probability epsilon a uniform random action, else the inner policy's.
class NoisyPolicy : public Policy {
 public:
  NoisyPolicy(std::unique_ptr<Policy> inner, double epsilon);
  int act(const SeaquestEnv& env) override;
  void reset(uint64_t seed) override;

 private:
  std::unique_ptr<Policy> inner_;
  double epsilon_;
  ArcadeRng rng_;
};

// "random", "expert", "careless", optionally ":<epsilon>" in [0, 1]; throws naming the specs.
std::unique_ptr<Policy> make_policy(const std::string& spec);

// The seed of episode `episode` of a run seeded `seed` (one Philox draw, so runs with nearby
// seeds share no episodes).
uint64_t episode_seed(uint64_t seed, int64_t episode);

struct EpisodeSummary {
  double score = 0;
  int steps = 0;
  int lives_lost = 0;
  int kills = 0, divers_rescued = 0;
};

// `episodes` episodes of the policy `spec`; episode e uses episode_seed(seed, e) for the game
// and the policy.
std::vector<EpisodeSummary> play_episodes(const std::string& spec, int episodes, uint64_t seed,
                                          const SeaquestConfig& config = {});

// The two ends of the normalised return 100 (R - random) / (expert - random) (the paper's
// score): the mean returns of `random` and `expert` over `episodes` episodes each (seeded as
// play_episodes). 100 episodes take about 1.3 s.
struct ReferenceReturns {
  double random = 0, expert = 0;
};
ReferenceReturns reference_returns(int episodes = 100, uint64_t seed = 0, const SeaquestConfig& config = {});
double normalized_return(double episode_return, const ReferenceReturns& reference);

}  // namespace hm::arcade
