#include "harmonic/data/arcade/doubledunk_policies.h"

#include <algorithm>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/doubledunk_env.h"
#include "harmonic/data/arcade/games.h"

namespace hm::arcade {
namespace {

using DunkEnv = DoubleDunkEnv;

constexpr double kDoubleDunkSwing = 2.0;   // points a change of possession is worth
constexpr double kDoubleDunkHold = 0.8;    // a shot the holder could take, against one taken now
constexpr double kDoubleDunkCatch = 0.9;   // a pass still in the air, against one caught
constexpr double kDoubleDunkOpenFar = 99;  // the careless planner's idea of the nearest defender

// Expected points of a shot by `p` from where it stands, as the planner sees it.
double doubledunk_expected(const DunkEnv& env, int p, bool careful) {
  const double chance = careful ? env.shot_probability(p)
                                : DunkEnv::shot_chance(DunkEnv::basket_distance(env.player(p)), kDoubleDunkOpenFar);
  return chance * DunkEnv::shot_value(env.player(p));
}

// The value of the position reached, for your team: the holder's (or the pass receiver's)
// shot to come, theirs counted against, and a holder running out of shot clock worth less.
double doubledunk_position_value(const DunkEnv& env, bool careful) {
  const DoubleDunkBall& ball = env.ball();
  if (ball.state == DoubleDunkBallState::Shot) return 0;  // released before planning began
  const int p = ball.state == DoubleDunkBallState::Held ? ball.holder : ball.target;
  const double sign = DunkEnv::team_of(p) == 0 ? 1.0 : -1.0;
  double v = kDoubleDunkHold * doubledunk_expected(env, p, careful || sign < 0);
  if (ball.state == DoubleDunkBallState::Pass) v *= kDoubleDunkCatch;
  v *= std::min(1.0, env.shot_clock() / 8.0);
  if (DunkEnv::team_of(p) == 0 && p == DunkEnv::kMate)  // an open you is a pass back the teammate can make
    v += 0.2 * std::min(1.0, env.nearest_defender(DunkEnv::kYou) / 12.0);
  return sign * v;
}

// The candidate `action`, then its move without FIRE for `lookahead` steps, on a planning copy.
double doubledunk_evaluate(const DunkEnv& env, int action, const DoubleDunkExpertOptions& options) {
  DunkEnv sim = env;
  sim.set_planning(true);
  const ActionEffect e = action_effect(action);
  const int follow = action_of(e.dx, e.dy, false);
  double value = 0, reach = 1;  // reach: the chance the ball has not changed hands by chance
  for (int t = 0; t <= options.lookahead && !sim.done(); ++t) {
    const int offense = sim.offense();
    DoubleDunkStepInfo info;
    sim.advance(t == 0 ? action : follow, &info);
    if (info.loss_chance > 0 && (options.careful || info.loss_team == 1)) {
      value += reach * info.loss_chance * (info.loss_team == 0 ? -kDoubleDunkSwing : kDoubleDunkSwing);
      reach *= 1 - info.loss_chance;
    }
    if (info.shooter >= 0) {
      const double chance =
          options.careful || DunkEnv::team_of(info.shooter) == 1
              ? info.shot_p
              : DunkEnv::shot_chance(DunkEnv::basket_distance(sim.player(info.shooter)), kDoubleDunkOpenFar);
      value += reach * (DunkEnv::team_of(info.shooter) == 0 ? 1.0 : -1.0) * chance * info.shot_points;
      return value;
    }
    if (info.possession_changed)  // a shot-clock turnover (the planning copy has no chance events)
      return value + reach * (offense == 0 ? -kDoubleDunkSwing : kDoubleDunkSwing);
  }
  return value + reach * doubledunk_position_value(sim, options.careful);
}

}  // namespace

int DoubleDunkExpert::act(const Game& game) {
  const auto* env = dynamic_cast<const DunkEnv*>(&game);
  check(env != nullptr, "DoubleDunkExpert::act", "plays doubledunk, not '{}'", game.name());
  if (env->done()) return kNoop;
  int best = kNoop;
  double best_value = -1e18;
  // Strictly better only: among equals the lower index wins, so a FIRE that does nothing loses
  // to the same move without it.
  // FIRE matters only with the ball on your team or an opponent's holder near you; otherwise a
  // FIRE variant is its move, so it is not simulated again.
  const int h = env->holder();
  const bool fire_matters =
      h == DunkEnv::kYou || h == DunkEnv::kMate ||
      (h >= 0 && DunkEnv::distance(env->player(DunkEnv::kYou), env->player(h)) <= DunkEnv::kSwipeReach + 3);
  for (int a = 0; a < kNumActions; ++a) {
    if (!fire_matters && action_effect(a).fire) continue;
    const double v = doubledunk_evaluate(*env, a, options_);
    if (v > best_value + 1e-9) best_value = v, best = a;
  }
  return best;
}

std::unique_ptr<Policy> make_doubledunk_policy(std::string_view name) {
  if (name == "expert") return std::make_unique<DoubleDunkExpert>();
  if (name == "careless") return std::make_unique<DoubleDunkExpert>(DoubleDunkExpertOptions{.careful = false});
  return nullptr;
}

namespace {

std::unique_ptr<Game> doubledunk_make(const GameConfig& config) { return std::make_unique<DunkEnv>(config); }

// The behaviour mixture, from random to near-expert play. Episodes end early when a team
// reaches 21 (random's after about 400 steps, expert:0.03's after about 720, careless:0.25's
// after about 930), so the episode weights are step shares (random 0.10, expert:0.75 0.15,
// expert:0.5 0.15, careless:0.25 0.15, expert:0.25 0.15, expert:0.1 0.18, expert:0.03 0.12)
// divided by each policy's mean episode length (data/arcade/README.md, DoubleDunk).
std::vector<MixtureComponent> doubledunk_mixture() {
  return {{"random", 0.16},      {"expert:0.75", 0.20}, {"expert:0.5", 0.14}, {"careless:0.25", 0.11},
          {"expert:0.25", 0.11}, {"expert:0.1", 0.16},  {"expert:0.03", 0.12}};
}

}  // namespace

GameInfo doubledunk_game_info() {
  GameInfo info;
  info.name = "doubledunk";
  info.atari_name = "DoubleDunk";
  info.observation_size = DunkEnv::kObservationSize;
  info.make = doubledunk_make;
  info.make_scripted = make_doubledunk_policy;
  info.scripted = {"expert", "careless"};
  info.default_mixture = doubledunk_mixture;
  info.format_version = 1;
  return info;
}

}  // namespace hm::arcade
