#include "harmonic/data/arcade/gravitar_policies.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/gravitar_env.h"
#include "harmonic/data/arcade/policy.h"

namespace hm::arcade {
namespace {

constexpr double kGravitarUnit = GravitarEnv::kSub;
constexpr int kGravitarLead = 8;                                 // steps the planner extrapolates the velocity
constexpr double kGravitarHeadingCost = 1.5;                     // per heading away from the wanted one
constexpr int kGravitarAimHeadings[] = {8, 7, 9, 6, 10, 5, 11};  // downward, straight first
constexpr int kGravitarAimRanges[] = {10, 14, 18};               // units from the bunker

// Where the expert wants to be (units) and, once there, which way to point (-1: any).
struct GravitarGoal {
  double x = 0, y = 0;
  int aim = -1;
};

double gravitar_dx_units(double xa, double xb) {
  const double w = GravitarEnv::kWidth;
  return std::remainder(xa - xb, w);  // in [-w/2, w/2]
}

double gravitar_clearance(const GravitarEnv& env, double x, double y, int half_width) {
  int ground = GravitarEnv::kHeight;
  for (int c = -half_width; c <= half_width; ++c) ground = std::min(ground, env.ground(static_cast<int>(x) + c));
  return ground - y;
}

GravitarGoal gravitar_choose_spot(const GravitarEnv& env, const GravitarExpertOptions& options) {
  const double sx = env.ship_x() / kGravitarUnit, sy = env.ship_y() / kGravitarUnit;
  auto dist = [&](double x, double y) { return std::hypot(gravitar_dx_units(x, sx), y - sy); };
  if (env.fuel() < options.fuel_low) {
    const GravitarTank* best = nullptr;
    for (const GravitarTank& t : env.tanks())
      if (t.alive && (!best || dist(t.x + 2, t.y) < dist(best->x + 2, best->y))) best = &t;
    if (best) return {best->x + GravitarEnv::kBoxW / 2.0, best->y - 8.0, -1};
  }
  int target = -1;
  double target_dist = std::numeric_limits<double>::infinity();
  for (int i = 0; i < GravitarEnv::kMaxBunkers; ++i) {
    const GravitarBunker& b = env.bunkers()[i];
    const double d = dist(b.x + 2.0, b.y);
    if (b.alive && d < target_dist) target = i, target_dist = d;
  }
  if (target < 0) return {sx, 14.0, -1};  // nothing to do: hover
  const GravitarBunker& b = env.bunkers()[target];
  const double cx = b.x + GravitarEnv::kBoxW / 2.0, cy = b.y + GravitarEnv::kBoxH / 2.0;
  // The firing points in order of distance from the ship; the first with clear ground around it
  // and a clear line of fire wins, else a point straight above the bunker.
  struct Spot {
    double dist, x, y;
    int aim;
  };
  std::vector<Spot> spots;
  for (int h : kGravitarAimHeadings) {
    for (int r : kGravitarAimRanges) {
      const double px =
          std::fmod(cx - r * GravitarEnv::heading_dx(h) / 16.0 + GravitarEnv::kWidth, GravitarEnv::kWidth);
      const double py = cy - r * GravitarEnv::heading_dy(h) / 16.0;
      spots.push_back({dist(px, py), px, py, h});
    }
  }
  std::sort(spots.begin(), spots.end(), [](const Spot& a, const Spot& b) { return a.dist < b.dist; });
  for (const Spot& s : spots) {
    if (s.y < 5 || gravitar_clearance(env, s.x, s.y, 6) < 8) continue;
    if (env.shot_target(static_cast<int>(s.x * kGravitarUnit), static_cast<int>(s.y * kGravitarUnit), s.aim) == target)
      return {s.x, s.y, s.aim};
  }
  return {cx, std::max(6.0, gravitar_clearance(env, cx, 0, 3) - 12.0), -1};
}

// The goal, reached over the terrain: while more than 6 columns away, the ship flies at least
// 12 units above the highest ground between it and the goal.
GravitarGoal gravitar_choose_goal(const GravitarEnv& env, const GravitarExpertOptions& options) {
  GravitarGoal goal = gravitar_choose_spot(env, options);
  const double sx = env.ship_x() / kGravitarUnit;
  const double dx = gravitar_dx_units(goal.x, sx);
  if (std::abs(dx) <= 6) return goal;
  int top = GravitarEnv::kHeight;
  const int from = static_cast<int>(std::floor(std::min(sx, sx + dx))),
            to = static_cast<int>(std::ceil(std::max(sx, sx + dx)));
  for (int c = from - 2; c <= to + 2; ++c) top = std::min(top, env.ground(c));
  goal.y = std::min(goal.y, std::max(5.0, top - 12.0));
  return goal;
}

int gravitar_heading_gap(int a, int b) {
  const int d = ((a - b) % GravitarEnv::kHeadings + GravitarEnv::kHeadings) % GravitarEnv::kHeadings;
  return std::min(d, GravitarEnv::kHeadings - d);
}

// The heading closest to the direction (x, y) (y down).
int gravitar_heading_towards(double x, double y) {
  const double turns = std::atan2(x, -y) / (2 * M_PI);  // 0 up, clockwise
  return static_cast<int>(std::lround(turns * GravitarEnv::kHeadings) + GravitarEnv::kHeadings) %
         GravitarEnv::kHeadings;
}

// How well the state after a candidate suits the goal: the velocity-extrapolated position's
// distance to it, the heading's gap to the one that would thrust towards it (or aim, once
// there), and a penalty for flying low.
double gravitar_goal_value(const GravitarEnv& sim, const GravitarGoal& goal) {
  const double g = sim.gravity() / kGravitarUnit;
  const double x = sim.ship_x() / kGravitarUnit, y = sim.ship_y() / kGravitarUnit;
  const double vx = sim.ship_vx() / kGravitarUnit, vy = sim.ship_vy() / kGravitarUnit;
  const double px = x + vx * kGravitarLead, py = y + vy * kGravitarLead + 0.5 * g * kGravitarLead * kGravitarLead;
  const double ex = gravitar_dx_units(goal.x, px), ey = goal.y - py;
  // Below the goal, height counts double: climb first, then cross (the ground is below).
  const double miss = std::hypot(ex, ey < 0 ? 2 * ey : ey);
  int wanted = 0;
  double settled_bonus = 0;
  const bool settled = std::hypot(gravitar_dx_units(goal.x, x), goal.y - y) < 2.5 && std::hypot(vx, vy) < 0.3;
  if (goal.aim >= 0 && settled) {
    // Turning to aim is worth more than any heading gap costs, so arriving is never avoided.
    wanted = goal.aim;
    settled_bonus = kGravitarHeadingCost * GravitarEnv::kHeadings / 2;
  } else {
    // Thrust = the acceleration that closes the gap over the lead time, minus gravity; never
    // below the horizon (gravity pulls down), and up when little is needed.
    const double ax = 2 * ex / (kGravitarLead * kGravitarLead);
    const double ay = std::min(0.0, 2 * ey / (kGravitarLead * kGravitarLead) - g);
    wanted = std::hypot(ax, ay) < 0.02 ? 0 : gravitar_heading_towards(ax, ay);
    if (goal.y < y - 3 && gravitar_heading_gap(wanted, 0) > 2) wanted = ax > 0 ? 2 : GravitarEnv::kHeadings - 2;
  }
  const double low =
      std::max(0.0, 7.0 - gravitar_clearance(sim, x, y, 3)) +
      std::max(0.0, 7.0 - gravitar_clearance(sim, std::fmod(px + GravitarEnv::kWidth, GravitarEnv::kWidth), py, 3));
  return settled_bonus - miss - kGravitarHeadingCost * gravitar_heading_gap(sim.heading(), wanted) - 4.0 * low;
}

// The way out of a dive: turn towards up-and-against the horizontal velocity, thrusting once
// within 45 degrees of that heading.
int gravitar_recovery_action(const GravitarEnv& sim) {
  const int wanted = gravitar_heading_towards(-2.0 * sim.ship_vx() / GravitarEnv::kMaxSpeed, -1.0);
  const int d =
      ((wanted - sim.heading()) % GravitarEnv::kHeadings + GravitarEnv::kHeadings + GravitarEnv::kHeadings / 2) %
          GravitarEnv::kHeadings -
      GravitarEnv::kHeadings / 2;  // in [-8, 8)
  return action_of(d > 0 ? 1 : (d < 0 ? -1 : 0), std::abs(d) <= 2 ? -1 : 0, false);
}

// How `steps` steps of `line` (an action for each state) end: the first life lost, or None.
// With `until_climbing`, a ship that climbs slowly well above the ground has escaped: stop.
template <typename Line>
GravitarLifeLoss gravitar_play_line(GravitarEnv sim, int steps, Line line, bool until_climbing = false) {
  GravitarStepInfo info;
  for (int k = 0; k < steps && !sim.done(); ++k) {
    sim.advance(line(sim), &info);
    if (info.life_lost != GravitarLifeLoss::None) return info.life_lost;
    if (until_climbing && sim.ship_vy() < 0 && std::abs(sim.ship_vx()) < GravitarEnv::kSub / 4 &&
        gravitar_clearance(sim, sim.ship_x() / kGravitarUnit, sim.ship_y() / kGravitarUnit, 2) > 4)
      break;
  }
  return GravitarLifeLoss::None;
}

// Plays `action` on a copy. With a look-ahead the candidate is safe when, after it, `lookahead`
// NOOPs or `lookahead` shield steps survive (the next bunker shots) and 4 `lookahead` steps of
// the recovery from a dive do not crash (the ground, which takes longer to avoid).
PlannedAction gravitar_evaluate(const GravitarEnv& env, int action, const GravitarExpertOptions& options,
                                    const GravitarGoal& goal, int lookahead) {
  GravitarEnv sim = env;
  GravitarStepInfo info;
  const double reward = sim.advance(action, &info).reward;
  const bool lost_now = info.life_lost != GravitarLifeLoss::None;
  double value = reward + 200.0 * info.tanks_collected;
  if (info.shots_fired) value += sim.shot_target(sim.ship_x(), sim.ship_y(), sim.heading()) >= 0 ? 30.0 : -3.0;
  if (action_effect(action).dy > 0 && info.tanks_collected == 0) {
    if (!options.shield) return {};  // the careless pilot raises it only to take a tank
    if (info.shots_blocked == 0) value -= 2.0;
  }
  PlannedAction c;
  c.safe = !lost_now;
  if (c.safe && lookahead > 0 && !sim.done()) {
    const bool dodges =
        gravitar_play_line(sim, lookahead, [](const GravitarEnv&) { return kNoop; }) == GravitarLifeLoss::None ||
        gravitar_play_line(sim, lookahead, [](const GravitarEnv&) { return kDown; }) == GravitarLifeLoss::None;
    c.safe =
        dodges && gravitar_play_line(sim, 4 * lookahead, gravitar_recovery_action, true) != GravitarLifeLoss::Crash;
  }
  c.score = value + gravitar_goal_value(sim, goal) - (lost_now && options.lookahead > 0 ? 1000.0 : 0.0);
  return c;
}

}  // namespace

int GravitarExpertPolicy::act(const Game& game) {
  const auto* env = dynamic_cast<const GravitarEnv*>(&game);
  check(env != nullptr, "GravitarExpertPolicy::act", "the game is '{}', not gravitar", game.name());
  if (env->done()) return kNoop;
  const GravitarGoal goal = gravitar_choose_goal(*env, options_);
  PlannedAction cands[kNumActions];
  for (int a = 0; a < kNumActions; ++a) cands[a] = gravitar_evaluate(*env, a, options_, goal, options_.lookahead);
  // The best safe action; if none is safe over the look-ahead, the best one safe for a step.
  if (options_.lookahead == 0) return best_planned_action(cands, false);
  if (const int best = best_planned_action(cands, true); best >= 0) return best;
  for (int a = 0; a < kNumActions; ++a) cands[a] = gravitar_evaluate(*env, a, options_, goal, 0);
  return best_planned_action(cands, false);
}

std::unique_ptr<Policy> make_gravitar_policy(std::string_view name) {
  if (name == "expert") return std::make_unique<GravitarExpertPolicy>();
  if (name == "careless")
    return std::make_unique<GravitarExpertPolicy>(GravitarExpertOptions{.lookahead = 0, .shield = false});
  return nullptr;
}

GameInfo gravitar_game_info() {
  GameInfo info;
  info.name = "gravitar";
  info.atari_name = "Gravitar";
  info.observation_size = GravitarEnv::kObservationSize;
  info.make = [](const GameConfig& config) -> std::unique_ptr<Game> { return std::make_unique<GravitarEnv>(config); };
  info.make_scripted = make_gravitar_policy;
  info.scripted = {"expert", "careless"};
  info.default_mixture = [] {
    return std::vector<MixtureComponent>{{"random", 0.15},        {"expert:0.75", 0.20}, {"expert:0.5", 0.20},
                                         {"careless:0.25", 0.15}, {"expert:0.25", 0.10}, {"expert:0.1", 0.12},
                                         {"expert:0.03", 0.08}};
  };
  info.format_version = 1;
  return info;
}

}  // namespace hm::arcade
