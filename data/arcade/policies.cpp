#include "harmonic/data/arcade/policies.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace {

using Env = SeaquestEnv;

struct Point {
  int x = 0, y = 0;
};

bool on_field(int x) { return x > -Env::kEntityW && x < Env::kWidth; }

// Where the expert wants to be next (header comment of policies.h).
Point choose_target(const Env& env, const ExpertOptions& options) {
  const Point here{env.sub_x(), env.sub_y()};
  if (!env.submerged() && env.oxygen() < Env::kMaxOxygen) return here;  // refill first
  const int steps_up = (env.sub_y() - Env::kSurfaceY) / Env::kSubSpeed;
  const int held = env.divers_held();
  if (held == Env::kMaxDivers || (held > 0 && env.oxygen() <= steps_up + options.oxygen_margin))
    return {env.sub_x(), Env::kSurfaceY};
  int best = std::numeric_limits<int>::max();
  Point target{(Env::kWidth - Env::kSubW) / 2, 32};  // patrol the middle corridor
  for (int lane = 0; lane < Env::kLanes; ++lane) {
    const Diver& d = env.divers()[lane];
    if (!d.alive || !on_field(d.x)) continue;
    const int dist = std::abs(d.x - here.x) + std::abs(Env::lane_top(lane) - here.y);
    if (dist < best) best = dist, target = {d.x + 2 * d.dir, Env::lane_top(lane)};
  }
  if (best < std::numeric_limits<int>::max()) return target;
  for (int lane = 0; lane < Env::kLanes; ++lane) {
    const Enemy& e = env.enemies()[lane];
    if (!e.alive || !on_field(e.x)) continue;
    const int dist = std::abs(e.x - here.x) + std::abs(Env::lane_top(lane) - here.y);
    if (dist < best) best = dist, target = {here.x, Env::lane_top(lane)};  // line up to shoot it
  }
  return target;
}

// An enemy on the field in the row of a torpedo fired from (x, y) towards `facing`.
bool enemy_ahead(const Env& env, int x, int y, int facing) {
  const int top = y + (Env::kSubH - Env::kTorpedoH) / 2;
  for (int lane = 0; lane < Env::kLanes; ++lane) {
    const Enemy& e = env.enemies()[lane];
    const int lt = Env::lane_top(lane);
    if (e.alive && on_field(e.x) && top < lt + Env::kEntityH && lt < top + Env::kTorpedoH && (e.x - x) * facing > 0)
      return true;
  }
  return false;
}

bool fatal(LifeLoss cause) { return cause == LifeLoss::Collision || cause == LifeLoss::EmptySurface; }

struct Candidate {
  double score = -std::numeric_limits<double>::infinity();
  bool safe = false;
};

// Plays `action` then `lookahead` NOOPs on a copy of the game.
Candidate evaluate(const Env& env, int action, int lookahead, Point target) {
  Env sim = env;
  StepInfo info;
  double reward = sim.advance(action, &info);
  bool safe = !fatal(info.life_lost);
  const Point after{sim.sub_x(), sim.sub_y()};
  const bool torpedo_was_free = !env.torpedo().alive;
  const ActionEffect effect = action_effect(action);
  for (int k = 0; k < lookahead && safe && !sim.done(); ++k) {
    reward += sim.advance(kNoop, &info);
    safe = !fatal(info.life_lost);
  }
  Candidate c;
  c.safe = safe;
  c.score = reward - std::abs(after.x - target.x) - std::abs(after.y - target.y);
  if (effect.fire) {
    // A shot that can hit something is worth a little; a wasted one (torpedo busy, nothing
    // ahead) costs a little, so the expert does not fire at random.
    const int facing = effect.dx != 0 ? effect.dx : env.facing();
    c.score += (torpedo_was_free && enemy_ahead(env, after.x, after.y, facing)) ? 5.0 : -1.0;
  }
  return c;
}

}  // namespace

int ExpertPolicy::act(const SeaquestEnv& env) {
  if (env.done()) return kNoop;
  const Point target = choose_target(env, options_);
  Candidate cands[kNumActions];
  for (int a = 0; a < kNumActions; ++a) cands[a] = evaluate(env, a, options_.lookahead, target);
  // The best safe action; if none is safe over the look-ahead, the best one safe for one
  // step; if none, the best regardless. The careless variant (lookahead 0) skips safety.
  auto best_of = [&](bool need_safe) {
    int best = -1;
    for (int a = 0; a < kNumActions; ++a)
      if ((!need_safe || cands[a].safe) && (best < 0 || cands[a].score > cands[best].score)) best = a;
    return best;
  };
  if (options_.lookahead == 0) return best_of(false);
  if (const int best = best_of(true); best >= 0) return best;
  for (int a = 0; a < kNumActions; ++a) cands[a] = evaluate(env, a, 0, target);
  if (const int best = best_of(true); best >= 0) return best;
  return best_of(false);
}

NoisyPolicy::NoisyPolicy(std::unique_ptr<Policy> inner, double epsilon) : inner_(std::move(inner)), epsilon_(epsilon) {
  check(inner_ != nullptr && epsilon >= 0 && epsilon <= 1, "NoisyPolicy", "epsilon {} must be in [0, 1] with a policy",
        epsilon);
}

int NoisyPolicy::act(const SeaquestEnv& env) {
  const bool explore = rng_.uniform() < epsilon_;  // drawn every step: the stream never shifts
  const int random_action = rng_.below(kNumActions);
  const int inner_action = inner_->act(env);
  return explore ? random_action : inner_action;
}

void NoisyPolicy::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/2);
  inner_->reset(seed);
}

std::unique_ptr<Policy> make_policy(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  std::unique_ptr<Policy> policy;
  if (name == "random") policy = std::make_unique<RandomPolicy>();
  if (name == "expert") policy = std::make_unique<ExpertPolicy>();
  if (name == "careless") policy = std::make_unique<ExpertPolicy>(ExpertOptions{.lookahead = 0});
  check(policy != nullptr, "make_policy",
        "unknown policy '{}' (random, expert, careless, each with an optional "
        ":<epsilon>, e.g. expert:0.1)",
        spec);
  if (colon == std::string::npos) return policy;
  char* end = nullptr;
  const std::string eps_text = spec.substr(colon + 1);
  const double eps = std::strtod(eps_text.c_str(), &end);
  check(!eps_text.empty() && end && *end == '\0' && eps >= 0 && eps <= 1, "make_policy",
        "'{}': epsilon '{}' must be a number in [0, 1]", spec, eps_text);
  return std::make_unique<NoisyPolicy>(std::move(policy), eps);
}

uint64_t episode_seed(uint64_t seed, int64_t episode) {
  const philox::Block b = philox::generate(seed, static_cast<uint64_t>(episode) ^ (uint64_t{0xE5} << 56));
  return (static_cast<uint64_t>(b.v[0]) << 32) | b.v[1];
}

std::vector<EpisodeSummary> play_episodes(const std::string& spec, int episodes, uint64_t seed,
                                          const SeaquestConfig& config) {
  check(episodes >= 1, "play_episodes", "episodes {} must be >= 1", episodes);
  std::unique_ptr<Policy> policy = make_policy(spec);
  SeaquestEnv env(config);
  std::vector<EpisodeSummary> out;
  for (int e = 0; e < episodes; ++e) {
    const uint64_t s = episode_seed(seed, e);
    env.reset(s);
    policy->reset(s);
    EpisodeSummary summary;
    while (!env.done()) {
      StepInfo info;
      env.advance(policy->act(env), &info);
      summary.lives_lost += info.life_lost != LifeLoss::None;
      summary.kills += info.kills;
      summary.divers_rescued += info.divers_rescued;
    }
    summary.score = env.score();
    summary.steps = env.steps();
    out.push_back(summary);
  }
  return out;
}

ReferenceReturns reference_returns(int episodes, uint64_t seed, const SeaquestConfig& config) {
  auto mean = [&](const std::string& spec) {
    double sum = 0;
    for (const EpisodeSummary& e : play_episodes(spec, episodes, seed, config)) sum += e.score;
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
