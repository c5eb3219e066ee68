#include "harmonic/data/arcade/seaquest_policies.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/policy.h"

namespace hm::arcade {
namespace seaquest_plan {
namespace {  // internal linkage: inlined, and no name clash in a unity batch

using Env = SeaquestEnv;

struct Point {
  int x = 0, y = 0;
};

bool on_field(int x) { return x > -Env::kEntityW && x < Env::kWidth; }

// Where the expert wants to be next (header comment of seaquest_policies.h).
Point choose_target(const Env& env, const SeaquestExpertOptions& options) {
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

// Plays `action` then `lookahead` NOOPs on a copy of the game.
PlannedAction evaluate(const Env& env, int action, int lookahead, Point target) {
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
  PlannedAction c;
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
}  // namespace seaquest_plan

int SeaquestExpertPolicy::act(const Game& game) {
  const auto* env = dynamic_cast<const SeaquestEnv*>(&game);
  check(env != nullptr, "SeaquestExpertPolicy::act", "plays seaquest, not {}", game.name());
  return act(*env);
}

int SeaquestExpertPolicy::act(const SeaquestEnv& env) {
  using namespace seaquest_plan;
  if (env.done()) return kNoop;
  const Point target = choose_target(env, options_);
  PlannedAction cands[kNumActions];
  for (int a = 0; a < kNumActions; ++a) cands[a] = evaluate(env, a, options_.lookahead, target);
  // The best safe action; if none is safe over the look-ahead, the best one safe for one
  // step; if none, the best regardless. The careless variant (lookahead 0) skips safety.
  if (options_.lookahead == 0) return best_planned_action(cands, false);
  if (const int best = best_planned_action(cands, true); best >= 0) return best;
  for (int a = 0; a < kNumActions; ++a) cands[a] = evaluate(env, a, 0, target);
  if (const int best = best_planned_action(cands, true); best >= 0) return best;
  return best_planned_action(cands, false);
}

std::unique_ptr<Policy> make_seaquest_policy(std::string_view name) {
  if (name == "expert") return std::make_unique<SeaquestExpertPolicy>();
  if (name == "careless") return std::make_unique<SeaquestExpertPolicy>(SeaquestExpertOptions{.lookahead = 0});
  return nullptr;
}

std::vector<MixtureComponent> seaquest_default_mixture() {
  return {{"random", 0.15},      {"expert:0.75", 0.20}, {"expert:0.5", 0.20}, {"careless:0.25", 0.15},
          {"expert:0.25", 0.10}, {"expert:0.1", 0.12},  {"expert:0.03", 0.08}};
}

}  // namespace hm::arcade
