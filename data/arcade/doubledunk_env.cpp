// The game's rules (doubledunk_env.h); the observation and the frame are in doubledunk_view.cpp.
#include "harmonic/data/arcade/doubledunk_env.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace {

using DunkEnv = DoubleDunkEnv;

int doubledunk_sign(int v) { return (v > 0) - (v < 0); }

// One step of at most `speed` units per axis from `from` towards `to`.
DoubleDunkPos doubledunk_step_towards(DoubleDunkPos from, DoubleDunkPos to, int speed) {
  const int dx = std::clamp(to.x - from.x, -speed, speed), dy = std::clamp(to.y - from.y, -speed, speed);
  return {std::clamp(from.x + dx, DunkEnv::kMinX, DunkEnv::kMaxX),
          std::clamp(from.y + dy, DunkEnv::kMinY, DunkEnv::kMaxY)};
}

// `n` units from `from` towards `to` (or `to` itself when nearer), rounded to the grid.
DoubleDunkPos doubledunk_advance_by(DoubleDunkPos from, DoubleDunkPos to, double n) {
  const double d = DunkEnv::distance(from, to);
  if (d <= n) return to;
  return {from.x + static_cast<int>(std::lround((to.x - from.x) * n / d)),
          from.y + static_cast<int>(std::lround((to.y - from.y) * n / d))};
}

constexpr DoubleDunkPos kDoubleDunkBasket{DunkEnv::kBasketX, DunkEnv::kBasketY};
constexpr DoubleDunkPos kDoubleDunkReboundSpot{DunkEnv::kBasketX, DunkEnv::kBasketY + 10};
// Where an attacker without the ball goes: the most open of these (corners, wings, top, post).
constexpr std::array<DoubleDunkPos, 7> kDoubleDunkSpots = {
    {{8, 10}, {72, 10}, {16, 28}, {64, 28}, {40, 36}, {28, 16}, {52, 16}}};

}  // namespace

DoubleDunkEnv::DoubleDunkEnv(GameConfig config, int target_score) : config_(config), target_score_(target_score) {
  check(config.max_steps >= 1 && target_score >= 1, "DoubleDunkEnv", "max_steps {} and target score {} must be >= 1",
        config.max_steps, target_score);
}

double DoubleDunkEnv::distance(DoubleDunkPos a, DoubleDunkPos b) {
  const double dx = a.x - b.x, dy = a.y - b.y;
  return std::sqrt(dx * dx + dy * dy);  // not std::hypot: the planner calls this ~10^3 times a step
}

double DoubleDunkEnv::basket_distance(DoubleDunkPos p) { return distance(p, kDoubleDunkBasket); }

double DoubleDunkEnv::shot_chance(double d, double guard) {
  const double range = std::clamp(0.95 - 0.02 * d, 0.03, 0.9);
  const double defence = 0.35 + 0.65 * std::clamp((guard - 3.0) / 9.0, 0.0, 1.0);
  return range * defence;
}

double DoubleDunkEnv::nearest_defender(int player) const {
  const int other = 1 - team_of(player);
  return std::min(distance(pos_[player], pos_[2 * other]), distance(pos_[player], pos_[2 * other + 1]));
}

double DoubleDunkEnv::shot_probability(int player) const {
  return shot_chance(basket_distance(pos_.at(player)), nearest_defender(player));
}

std::vector<float> DoubleDunkEnv::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/0);
  points_ = {0, 0};
  steps_ = 0;
  score_ = 0;
  done_ = false;
  line_up(rng_.coin() ? 0 : 1);  // the opening possession is a coin toss
  return observation();
}

// The attackers' holder stands at the top of the arc, its mate on a wing; each defender stands
// goal-side of one attacker (your teammate on the holder, you on the wing when defending).
void DoubleDunkEnv::line_up(int team) {
  offense_ = team;
  const int holder = 2 * team, mate = 2 * team + 1;
  const int jitter = rng_.between(-8, 8);
  const int wing_x = rng_.coin() ? 16 : 64, wing_y = 28 + rng_.between(-4, 4);
  pos_[holder] = {kBasketX + jitter, 44};
  pos_[mate] = {wing_x, wing_y};
  const int on_ball = team == 0 ? kOpp1 : kMate, on_wing = team == 0 ? kOpp2 : kYou;
  pos_[on_ball] = doubledunk_advance_by(pos_[holder], kDoubleDunkBasket, kGuardDistance);
  pos_[on_wing] = doubledunk_advance_by(pos_[mate], kDoubleDunkBasket, kGuardDistance);
  ball_ = {};
  ball_.holder = holder;
  shot_clock_ = kShotClock;
  hold_steps_ = 0;
  called_ = false;
}

void DoubleDunkEnv::change_possession(DoubleDunkStepInfo& info) {
  info.possession_changed = true;
  line_up(1 - offense_);
}

// The ball's side of the attack: the holder, the pass's receiver, or the shooter.
DoubleDunkPos DoubleDunkEnv::guard_spot(int defender) const {
  const int attack = 1 - team_of(defender);
  int ball_side = ball_.state == DoubleDunkBallState::Held   ? ball_.holder
                  : ball_.state == DoubleDunkBallState::Pass ? ball_.target
                                                             : ball_.shooter;
  if (ball_side < 0 || team_of(ball_side) != attack) ball_side = 2 * attack;
  const int off_ball = ball_side ^ 1;
  int man;
  if (defender == kMate) {
    // Your teammate takes the attacker you are farther from (you are free to choose).
    man = distance(pos_[kYou], pos_[ball_side]) <= distance(pos_[kYou], pos_[off_ball]) ? off_ball : ball_side;
  } else {
    const int other = defender ^ 1;
    const double mine = distance(pos_[defender], pos_[ball_side]), theirs = distance(pos_[other], pos_[ball_side]);
    const bool takes_ball = mine < theirs || (mine == theirs && defender < other);
    man = takes_ball ? ball_side : off_ball;
  }
  return doubledunk_advance_by(pos_[man], kDoubleDunkBasket, kGuardDistance);
}

// The most open spot: far from the defenders, and away from the ball (spacing).
DoubleDunkPos DoubleDunkEnv::open_spot(int p) const {
  const int other = 1 - team_of(p);
  const DoubleDunkPos ball_at = holder() >= 0 ? pos_[holder()] : DoubleDunkPos{ball_.x, ball_.y};
  double best = -1e9;
  DoubleDunkPos spot = pos_[p];
  for (const DoubleDunkPos& s : kDoubleDunkSpots) {
    const double open = std::min(distance(s, pos_[2 * other]), distance(s, pos_[2 * other + 1]));
    const double value = open + 0.5 * std::min(distance(s, ball_at), 20.0) - 0.1 * distance(s, pos_[p]);
    if (value > best) best = value, spot = s;
  }
  return spot;
}

// A scripted holder's choice: 1 shoot (a good look, or the clock), 2 pass (guarded while the
// mate is open, or your call for the ball), else 0 keep dribbling.
int DoubleDunkEnv::scripted_choice(int p) const {
  const int mate = p ^ 1;
  const double ev = shot_probability(p) * shot_value(pos_[p]);
  if (shot_clock_ <= 3) return 1;
  if (hold_steps_ >= 2 && ev >= 1.0) return 1;
  if (p == kMate && called_) return 2;
  if (hold_steps_ >= 3 && nearest_defender(p) <= 5 && nearest_defender(mate) >= 8) return 2;
  return 0;
}

void DoubleDunkEnv::script_player(int p, DoubleDunkPos goal, int speed) {
  pos_[p] = doubledunk_step_towards(pos_[p], goal, speed);
}

void DoubleDunkEnv::release_shot(int shooter, DoubleDunkStepInfo& info) {
  ball_ = {};
  ball_.state = DoubleDunkBallState::Shot;
  ball_.x = pos_[shooter].x, ball_.y = pos_[shooter].y;
  ball_.shooter = shooter;
  ball_.shot_p = shot_probability(shooter);
  ball_.shot_points = shot_value(pos_[shooter]);
  info.shooter = shooter, info.shot_p = ball_.shot_p, info.shot_points = ball_.shot_points;
  hold_steps_ = 0;
}

void DoubleDunkEnv::throw_pass(int passer, int receiver, DoubleDunkStepInfo& info) {
  ball_ = {};
  ball_.state = DoubleDunkBallState::Pass;
  ball_.x = pos_[passer].x, ball_.y = pos_[passer].y;
  ball_.target = receiver;
  info.passer = passer, info.receiver = receiver;
  hold_steps_ = 0;
}

// Chances of losing the ball: the planner's model skips them and adds up their probability.
namespace {
bool doubledunk_chance(ArcadeRng& rng, bool planning, double p, DoubleDunkStepInfo& info) {
  if (planning) {
    info.loss_chance = 1 - (1 - info.loss_chance) * (1 - p);
    return false;
  }
  return rng.uniform() < p;
}
}  // namespace

int DoubleDunkEnv::fly_ball(DoubleDunkStepInfo& info) {
  const DoubleDunkPos at{ball_.x, ball_.y};
  if (ball_.state == DoubleDunkBallState::Pass) {
    const DoubleDunkPos to = pos_[ball_.target];
    if (distance(at, to) <= kPassSpeed) {
      ball_ = {DoubleDunkBallState::Held, ball_.target};
      hold_steps_ = 0;
      info.caught_by = ball_.holder;
      return 0;
    }
    const DoubleDunkPos next = doubledunk_advance_by(at, to, kPassSpeed);
    ball_.x = next.x, ball_.y = next.y;
    const int defence = 1 - offense_;
    for (int d : {2 * defence, 2 * defence + 1}) {
      if (distance(next, pos_[d]) > kInterceptReach) continue;
      info.loss_team = offense_;
      if (doubledunk_chance(rng_, planning_, kInterceptChance, info)) {
        info.intercepted_by = d;
        change_possession(info);
        return 0;
      }
    }
    return 0;
  }
  // A shot.
  const DoubleDunkPos next = doubledunk_advance_by(at, kDoubleDunkBasket, kShotSpeed);
  ball_.x = next.x, ball_.y = next.y;
  if (next.x != kBasketX || next.y != kBasketY || planning_) return 0;  // in the air (or unresolved)
  const int team = team_of(ball_.shooter);
  if (rng_.uniform() < ball_.shot_p) {
    const int scored = ball_.shot_points;
    points_[team] += scored;
    (team == 0 ? info.points_for : info.points_against) += scored;
    change_possession(info);
    return team == 0 ? scored : -scored;
  }
  // A miss: the rebound goes to a player drawn by nearness to the basket, the defence favoured.
  std::array<double, kPlayers> w{};
  double total = 0;
  for (int p = 0; p < kPlayers; ++p) {
    w[p] = (team_of(p) == team ? 1.0 : 1.5) / (4.0 + basket_distance(pos_[p]));
    total += w[p];
  }
  double u = rng_.uniform() * total;
  int r = kPlayers - 1;
  for (int p = 0; p < kPlayers; ++p) {
    if (u < w[p]) {
      r = p;
      break;
    }
    u -= w[p];
  }
  info.rebound_by = r;
  if (team_of(r) != team) {
    change_possession(info);
  } else {
    ball_ = {DoubleDunkBallState::Held, r};
    shot_clock_ = kShotClock;
    hold_steps_ = 0;
  }
  return 0;
}

DoubleDunkStepResult DoubleDunkEnv::step(int action) {
  DoubleDunkStepResult r;
  const GameStep s = advance(action, &r.info);
  r.reward = s.reward;
  r.done = s.done;
  r.observation = observation();
  return r;
}

GameStep DoubleDunkEnv::advance(int action, DoubleDunkStepInfo* info_out) {
  check(!done_, "DoubleDunkEnv::step", "the episode has ended (step {}, score {}-{}); call reset(seed)", steps_,
        points_[0], points_[1]);
  const ActionEffect move = action_effect(action);
  DoubleDunkStepInfo info;
  double reward = 0;

  // 1. You move, then FIRE: shoot or pass with the ball, call for it, or swipe at it.
  pos_[kYou] = {std::clamp(pos_[kYou].x + move.dx * kYouSpeed, kMinX, kMaxX),
                std::clamp(pos_[kYou].y + move.dy * kYouSpeed, kMinY, kMaxY)};
  called_ = false;
  if (move.fire && holder() == kYou) {
    if (move.dy < 0 || (move.dx == 0 && move.dy == 0))
      release_shot(kYou, info);
    else
      throw_pass(kYou, kMate, info);
  } else if (move.fire && holder() == kMate) {
    called_ = true;
  } else if (move.fire && offense_ == 1 && holder() >= 0 && distance(pos_[kYou], pos_[holder()]) <= kSwipeReach) {
    info.loss_team = 1;
    if (doubledunk_chance(rng_, planning_, kSwipeChance, info)) {
      info.stolen_by = kYou;
      change_possession(info);
    }
  }

  // 2. The scripted players: the holder shoots, passes or dribbles; attackers without the ball
  // get open (or crash the boards under a shot), defenders stay goal-side of their man.
  if (config_.spawn && !info.possession_changed) {
    for (int p = 1; p < kPlayers; ++p) {
      if (holder() == p) {
        const int choice = scripted_choice(p);
        if (choice == 1) {
          release_shot(p, info);
        } else if (choice == 2) {
          throw_pass(p, p == kMate ? kYou : p ^ 1, info);
        } else {
          // Drive at the basket, sliding away from a defender in the way.
          const int other = 1 - team_of(p);
          const int d =
              distance(pos_[p], pos_[2 * other]) <= distance(pos_[p], pos_[2 * other + 1]) ? 2 * other : 2 * other + 1;
          DoubleDunkPos goal = kDoubleDunkBasket;
          if (distance(pos_[p], pos_[d]) < 6) {
            const int side =
                pos_[p].x != pos_[d].x ? doubledunk_sign(pos_[p].x - pos_[d].x) : (pos_[p].x < kBasketX ? 1 : -1);
            goal = {pos_[p].x + 4 * side, pos_[p].y - 4};
          }
          script_player(p, goal, kDribbleSpeed);
        }
      } else if (team_of(p) == offense_) {
        script_player(p, ball_.state == DoubleDunkBallState::Shot ? kDoubleDunkReboundSpot : open_spot(p), kRunSpeed);
      } else {
        script_player(p, ball_.state == DoubleDunkBallState::Shot ? kDoubleDunkReboundSpot : guard_spot(p),
                      kGuardSpeed);
      }
    }
  }

  // 3. The ball flies: a pass is caught or intercepted, a shot scores or is rebounded.
  if (!info.possession_changed && ball_.state != DoubleDunkBallState::Held) reward += fly_ball(info);

  // 4. Defenders within reach of the holder may steal the ball.
  if (!info.possession_changed && holder() >= 0) {
    const int defence = 1 - offense_;
    for (int d : {2 * defence, 2 * defence + 1}) {
      if (distance(pos_[d], pos_[holder()]) > kStealReach) continue;
      info.loss_team = offense_;
      if (doubledunk_chance(rng_, planning_, kStealChance, info)) {
        info.stolen_by = d;
        change_possession(info);
        break;
      }
    }
  }

  // 5. The shot clock runs while the attack holds or passes the ball.
  if (!info.possession_changed) {
    if (holder() >= 0) hold_steps_ += 1;
    if (ball_.state != DoubleDunkBallState::Shot && --shot_clock_ <= 0) {
      info.shot_clock_turnover = true;
      change_possession(info);
    }
  }

  steps_ += 1;
  score_ += reward;
  info.target_reached = points_[0] >= target_score_ || points_[1] >= target_score_;
  info.truncated = !info.target_reached && steps_ >= config_.max_steps;
  done_ = info.target_reached || steps_ >= config_.max_steps;
  if (info_out) *info_out = info;
  return {.reward = reward, .done = done_, .truncated = info.truncated, .life_lost = false};
}

void DoubleDunkEnv::place_player(int player, int x, int y) {
  check(player >= 0 && player < kPlayers && x >= kMinX && x <= kMaxX && y >= kMinY && y <= kMaxY,
        "DoubleDunkEnv::place_player", "player {} at ({}, {}): need player 0..3 inside x {}..{}, y {}..{}", player, x,
        y, kMinX, kMaxX, kMinY, kMaxY);
  pos_[player] = {x, y};
}

void DoubleDunkEnv::give_ball(int player) {
  check(player >= 0 && player < kPlayers, "DoubleDunkEnv::give_ball", "player {} is outside 0..3", player);
  ball_ = {DoubleDunkBallState::Held, player};
  offense_ = team_of(player);
  shot_clock_ = kShotClock;
  hold_steps_ = 0;
  called_ = false;
}

void DoubleDunkEnv::set_shot_clock(int steps) {
  check(steps >= 1 && steps <= kShotClock, "DoubleDunkEnv::set_shot_clock", "{} is outside 1..{}", steps, kShotClock);
  shot_clock_ = steps;
}

void DoubleDunkEnv::set_points(int ours, int theirs) {
  check(ours >= 0 && theirs >= 0 && ours < target_score_ && theirs < target_score_, "DoubleDunkEnv::set_points",
        "{}-{}: each must be in 0..{} (below the target score)", ours, theirs, target_score_ - 1);
  points_ = {ours, theirs};
}

}  // namespace hm::arcade
