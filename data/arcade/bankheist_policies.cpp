#include "harmonic/data/arcade/bankheist_policies.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/policy.h"

namespace hm::arcade {
namespace {

using BH = BankHeistEnv;

struct BankheistGoal {
  int x = 0, y = 0;
};

// Where the expert heads (header comment of bankheist_policies.h).
BankheistGoal bankheist_goal(const BH& env, const BankHeistExpertOptions& options) {
  const int cx = env.car_x(), cy = env.car_y();
  const BankheistGoal exit{BH::kCols - 1, env.exit_row()};
  if (env.fuel() <= env.street_distance(cx, cy, exit.x, exit.y) + 1 + options.fuel_margin) return exit;
  int best = std::numeric_limits<int>::max();
  BankheistGoal goal{cx, cy};
  for (const BH::Bank& b : env.banks()) {
    if (!b.alive) continue;
    const int d = env.street_distance(cx, cy, b.x, b.y);
    if (d < best) best = d, goal = {b.x, b.y};
  }
  if (best < std::numeric_limits<int>::max()) return goal;
  // No bank: wait at the crossing farthest (by street) from the nearest police car.
  int safest = -1;
  for (int y = 0; y < BH::kRows; y += BH::kBlock)
    for (int x = 0; x < BH::kCols; x += BH::kBlock) {
      int nearest = 2 * (BH::kCols + BH::kRows);
      for (const BH::Police& p : env.police())
        if (p.alive) nearest = std::min(nearest, env.street_distance(x, y, p.x, p.y));
      if (nearest > safest) safest = nearest, goal = {x, y};
    }
  return goal;
}

// A chasing police car within `reach` tiles (streets) of (x, y).
bool bankheist_police_near(const BH& env, int x, int y, int reach) {
  for (const BH::Police& p : env.police())
    if (p.alive && p.wake == 0 && env.street_distance(x, y, p.x, p.y) <= reach) return true;
  return false;
}

// How the look-ahead drives on: straight ahead, or at a wall the first open turn (north or
// west, then south or east), else back.
int bankheist_drive_on(const BH& env) {
  const int h = env.heading(), x = env.car_x(), y = env.car_y();
  for (int dir : {h, (h + 3) % 4, (h + 1) % 4, (h + 2) % 4})
    if (env.open(x, y, dir)) return action_of(BH::kDirDx[dir], BH::kDirDy[dir], false);
  return kNoop;
}

// Plays `action`, then drives on for `lookahead` steps, on a copy of the game.
PlannedAction bankheist_evaluate(const BH& env, int action, int lookahead, BankheistGoal goal) {
  BH sim = env;
  BH::Info info;
  double reward = sim.advance(action, &info).reward;
  bool safe = info.life_lost == BH::LifeLoss::None;
  const bool left_city = sim.city() != env.city();
  const int ax = sim.car_x(), ay = sim.car_y();
  for (int k = 0; k < lookahead && safe && !sim.done(); ++k) {
    reward += sim.advance(bankheist_drive_on(sim), &info).reward;
    safe = info.life_lost == BH::LifeLoss::None;
  }
  PlannedAction c;
  c.safe = safe;
  // Leaving the city is the exit goal reached (and its distance is meaningless in the new city).
  c.score = reward + (left_city ? 1000.0 : -static_cast<double>(env.street_distance(ax, ay, goal.x, goal.y)));
  if (action_effect(action).fire) {
    // Dynamite pays when a police car chases close behind; otherwise a stick is wasted (and a
    // stick lying about blocks the next one).
    const bool useful = !env.dynamite().alive && bankheist_police_near(env, env.car_x(), env.car_y(), 4);
    c.score += useful ? 5.0 : -1.0;
  }
  return c;
}

}  // namespace

int BankHeistExpertPolicy::act(const Game& game) {
  const auto* env = dynamic_cast<const BH*>(&game);
  check(env != nullptr, "BankHeistExpertPolicy::act", "plays bankheist, not '{}'", game.name());
  if (env->done()) return kNoop;
  const BankheistGoal goal = bankheist_goal(*env, options_);
  // Actions that drive the same way with the same fire button play out identically: simulate
  // each (direction, fire) once (at most 10 of the 18 actions; 4 to 6 on most tiles).
  PlannedAction cands[kNumActions];
  auto evaluate_all = [&](int lookahead) {
    int first[10];
    std::fill(std::begin(first), std::end(first), -1);
    for (int a = 0; a < kNumActions; ++a) {
      const int key = (env->direction_of(a) + 1) * 2 + (action_effect(a).fire ? 1 : 0);
      if (first[key] < 0) {
        first[key] = a;
        cands[a] = bankheist_evaluate(*env, a, lookahead, goal);
      } else {
        cands[a] = cands[first[key]];
      }
    }
  };
  evaluate_all(options_.lookahead);
  // The best safe action; if none is safe over the look-ahead, the best one safe for one
  // step; if none, the best regardless. The careless variant (lookahead 0) skips safety.
  if (options_.lookahead == 0) return best_planned_action(cands, false);
  if (const int best = best_planned_action(cands, true); best >= 0) return best;
  evaluate_all(0);
  if (const int best = best_planned_action(cands, true); best >= 0) return best;
  return best_planned_action(cands, false);
}

std::unique_ptr<Policy> make_bankheist_policy(std::string_view name) {
  if (name == "expert") return std::make_unique<BankHeistExpertPolicy>();
  if (name == "careless") return std::make_unique<BankHeistExpertPolicy>(BankHeistExpertOptions{.lookahead = 0});
  return nullptr;
}

GameInfo bankheist_game_info() {
  GameInfo info;
  info.name = "bankheist";
  info.atari_name = "BankHeist";
  info.observation_size = BankHeistEnv::kObservationSize;
  info.make = [](const GameConfig& config) -> std::unique_ptr<Game> { return std::make_unique<BankHeistEnv>(config); };
  info.make_scripted = make_bankheist_policy;
  info.scripted = {"expert", "careless"};
  // Episode weights chosen so that the steps spread from random to near-expert play
  // (data/arcade/README.md, "BankHeist stand-in").
  info.default_mixture = [] {
    return std::vector<MixtureComponent>{{"random", 0.14},        {"expert:0.75", 0.21}, {"expert:0.5", 0.22},
                                         {"careless:0.25", 0.21}, {"expert:0.25", 0.11}, {"expert:0.1", 0.07},
                                         {"expert:0.03", 0.04}};
  };
  info.format_version = 1;
  return info;
}

}  // namespace hm::arcade
