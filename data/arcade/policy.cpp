#include "harmonic/data/arcade/policy.h"

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/games.h"

namespace hm::arcade {

NoisyPolicy::NoisyPolicy(std::unique_ptr<Policy> inner, double epsilon) : inner_(std::move(inner)), epsilon_(epsilon) {
  check(inner_ != nullptr && epsilon >= 0 && epsilon <= 1, "NoisyPolicy", "epsilon {} must be in [0, 1] with a policy",
        epsilon);
}

int NoisyPolicy::act(const Game& game) {
  const bool explore = rng_.uniform() < epsilon_;  // drawn every step: the stream never shifts
  const int random_action = rng_.below(kNumActions);
  const int inner_action = inner_->act(game);
  return explore ? random_action : inner_action;
}

void NoisyPolicy::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/2);
  inner_->reset(seed);
}

int best_planned_action(const PlannedAction (&actions)[kNumActions], bool need_safe) {
  int best = -1;
  for (int a = 0; a < kNumActions; ++a)
    if ((!need_safe || actions[a].safe) && (best < 0 || actions[a].score > actions[best].score)) best = a;
  return best;
}

uint64_t episode_seed(uint64_t seed, int64_t episode) {
  const philox::Block b = philox::generate(seed, static_cast<uint64_t>(episode) ^ (uint64_t{0xE5} << 56));
  return (static_cast<uint64_t>(b.v[0]) << 32) | b.v[1];
}

std::vector<EpisodeSummary> play_episodes(std::string_view game, const std::string& spec, int episodes, uint64_t seed,
                                          const GameConfig& config) {
  check(episodes >= 1, "play_episodes", "episodes {} must be >= 1", episodes);
  std::unique_ptr<Policy> policy = make_policy(game, spec);
  std::unique_ptr<Game> g = make_game(game, config);
  std::vector<EpisodeSummary> out;
  for (int e = 0; e < episodes; ++e) {
    const uint64_t s = episode_seed(seed, e);
    g->reset(s);
    policy->reset(s);
    EpisodeSummary summary;
    while (!g->done()) summary.lives_lost += g->advance(policy->act(*g)).life_lost;
    summary.score = g->score();
    summary.steps = g->steps();
    summary.tallies = g->tallies();
    out.push_back(std::move(summary));
  }
  return out;
}

ReferenceReturns reference_returns(std::string_view game, int episodes, uint64_t seed, const GameConfig& config) {
  auto mean = [&](const std::string& spec) {
    double sum = 0;
    for (const EpisodeSummary& e : play_episodes(game, spec, episodes, seed, config)) sum += e.score;
    return sum / episodes;
  };
  return {mean("random"), mean("expert")};
}

double normalized_return(double episode_return, const ReferenceReturns& reference) {
  check(reference.expert > reference.random, "normalized_return", "expert return {} must exceed random return {}",
        reference.expert, reference.random);
  return 100.0 * (episode_return - reference.random) / (reference.expert - reference.random);
}

}  // namespace hm::arcade
