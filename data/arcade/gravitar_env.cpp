// The game's rules (gravitar_env.h); the observation and the frame are in gravitar_view.cpp.
#include "harmonic/data/arcade/gravitar_env.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace {

constexpr int kGravitarFieldW = GravitarEnv::kWidth * GravitarEnv::kSub;  // sub-units round the planet
constexpr int kGravitarSegment = 8;                                       // terrain control points every 8 columns
constexpr int kGravitarSegments = GravitarEnv::kWidth / kGravitarSegment;
constexpr int kGravitarMinGround = 34, kGravitarMaxGround = 58;  // the drawn ground rows
constexpr int kGravitarBoxHalfW = GravitarEnv::kBoxW * GravitarEnv::kSub / 2,
              kGravitarBoxHalfH = GravitarEnv::kBoxH * GravitarEnv::kSub / 2;
constexpr int kGravitarShotHalf = GravitarEnv::kSub / 2;  // a bunker shot's box is centre +- half a unit

// 16 * (sin, -cos) of heading * 22.5 degrees, rounded: x right, y down, heading 0 up.
constexpr int kGravitarDirX[GravitarEnv::kHeadings] = {0, 6, 11, 15, 16, 15, 11, 6, 0, -6, -11, -15, -16, -15, -11, -6};
constexpr int kGravitarDirY[GravitarEnv::kHeadings] = {-16, -15, -11, -6, 0, 6, 11, 15, 16, 15, 11, 6, 0, -6, -11, -15};
constexpr int kGravitarShotScale = 16;  // a shot flies kDir * 16 sub-units a step: 2 units

int gravitar_wrap_x(int x) {
  if (x >= 0 && x < kGravitarFieldW) return x;  // the common case, without a division
  return ((x % kGravitarFieldW) + kGravitarFieldW) % kGravitarFieldW;
}
int gravitar_column(int x) { return gravitar_wrap_x(x) / GravitarEnv::kSub; }
int gravitar_box_cx(int left) { return left * GravitarEnv::kSub + kGravitarBoxHalfW; }  // a 4 x 3 box's centre
int gravitar_box_cy(int top) { return top * GravitarEnv::kSub + kGravitarBoxHalfH; }

}  // namespace

std::string_view gravitar_life_loss_name(GravitarLifeLoss cause) {
  switch (cause) {
    case GravitarLifeLoss::None:
      return "none";
    case GravitarLifeLoss::Crash:
      return "crash";
    case GravitarLifeLoss::Shot:
      return "shot";
    case GravitarLifeLoss::Fuel:
      return "fuel";
  }
  return "?";
}

int GravitarEnv::heading_dx(int heading) { return kGravitarDirX[((heading % kHeadings) + kHeadings) % kHeadings]; }
int GravitarEnv::heading_dy(int heading) { return kGravitarDirY[((heading % kHeadings) + kHeadings) % kHeadings]; }

int GravitarEnv::wrap_dx(int xa, int xb) {
  return gravitar_wrap_x(xa - xb + kGravitarFieldW / 2) - kGravitarFieldW / 2;
}

GravitarEnv::GravitarEnv(GameConfig config) : config_(config) {
  check(config.max_steps >= 1 && config.lives >= 1, "GravitarEnv", "max_steps {} and lives {} must be >= 1",
        config.max_steps, config.lives);
}

std::vector<float> GravitarEnv::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/0);
  lives_ = config_.lives;
  planet_ = steps_ = 0;
  score_ = 0;
  done_ = false;
  fuel_ = kStartFuel;
  new_planet();
  restart_ship();
  return observation();
}

int GravitarEnv::gravity() const { return std::min(kGravity0 + planet_, kMaxGravity); }

int GravitarEnv::ground(int column) const {
  if (column >= 0 && column < kWidth) return ground_[column];
  return ground_[((column % kWidth) + kWidth) % kWidth];
}

int GravitarEnv::bunkers_left() const {
  int n = 0;
  for (const GravitarBunker& b : bunkers_) n += b.alive;
  return n;
}

// Later planets' bunkers pause less between shots.
int GravitarEnv::bunker_reload_draw() {
  return rng_.between(std::max(12, 30 - 4 * planet_), std::max(30, 70 - 6 * planet_));
}

// Terrain: control rows every 8 columns joined by straight lines, each column jittered by a
// unit; then distinct segments get a flat 6-column pad with a bunker or a tank on it.
void GravitarEnv::new_planet() {
  int control[kGravitarSegments + 1];
  for (int s = 0; s < kGravitarSegments; ++s) control[s] = rng_.between(kGravitarMinGround, kGravitarMaxGround);
  control[kGravitarSegments] = control[0];  // the planet wraps
  for (int c = 0; c < kWidth; ++c) {
    const int s = c / kGravitarSegment, t = c % kGravitarSegment;
    const int row = control[s] + (control[s + 1] - control[s]) * t / kGravitarSegment + rng_.between(-1, 1);
    ground_[c] = std::clamp(row, kGravitarMinGround - 1, kGravitarMaxGround + 1);
  }
  bunkers_ = {};
  tanks_ = {};
  if (!config_.spawn) return;
  int order[kGravitarSegments];
  for (int s = 0; s < kGravitarSegments; ++s) order[s] = s;
  const int n_bunkers = std::min(kFirstBunkers + planet_, kMaxBunkers);
  for (int i = 0; i < n_bunkers + kTanks; ++i) std::swap(order[i], order[i + rng_.below(kGravitarSegments - i)]);
  for (int i = 0; i < n_bunkers + kTanks; ++i) {
    const int pad = order[i] * kGravitarSegment + 1;
    const int level = *std::min_element(ground_.begin() + pad, ground_.begin() + pad + 6);
    std::fill(ground_.begin() + pad, ground_.begin() + pad + 6, level);
    if (i < n_bunkers)
      bunkers_[i] = {true, pad + 1, level - kBoxH, bunker_reload_draw()};
    else
      tanks_[i - n_bunkers] = {true, pad + 1, level - kBoxH};
  }
}

void GravitarEnv::restart_ship() {
  x_ = kStartX, y_ = kStartY, vx_ = vy_ = 0, heading_ = 0;
  reload_ = 0;
  shield_ = false;
  fuel_ = std::max(fuel_, kStartFuel);
  shots_ = {};
  enemy_shots_ = {};
  if (config_.spawn)
    for (GravitarBunker& b : bunkers_)
      if (b.alive) b.reload = bunker_reload_draw();  // a grace period after a restart
}

// The first bunker whose box the point (x, y) lies in, or -1.
static int gravitar_bunker_at(const std::array<GravitarBunker, GravitarEnv::kMaxBunkers>& bunkers, int x, int y) {
  for (int i = 0; i < GravitarEnv::kMaxBunkers; ++i) {
    const GravitarBunker& b = bunkers[i];
    if (b.alive && std::abs(GravitarEnv::wrap_dx(x, gravitar_box_cx(b.x))) < kGravitarBoxHalfW &&
        std::abs(y - gravitar_box_cy(b.y)) < kGravitarBoxHalfH)
      return i;
  }
  return -1;
}

// Moves a ship's shot one step in two half-steps (a half-step is at most one unit, less than a
// box, so no bunker is jumped); returns the bunker it reached, or -1. It dies on the ground, at
// the top of the field, at a bunker or when its life runs out.
static int gravitar_shot_step(const GravitarEnv& env, GravitarShot& s) {
  for (int half = 0; half < 2 && s.alive; ++half) {
    s.x = gravitar_wrap_x(s.x + s.vx / 2);
    s.y += s.vy / 2;
    if (s.y < 0 || s.y >= env.ground(gravitar_column(s.x)) * GravitarEnv::kSub) {
      s.alive = false;
      return -1;
    }
    if (const int hit = gravitar_bunker_at(env.bunkers(), s.x, s.y); hit >= 0) {
      s.alive = false;
      return hit;
    }
  }
  if (--s.life <= 0) s.alive = false;
  return -1;
}

int GravitarEnv::shot_target(int x, int y, int heading) const {
  GravitarShot s{true,
                 gravitar_wrap_x(x + heading_dx(heading) * kGravitarShotScale),
                 y + heading_dy(heading) * kGravitarShotScale,
                 heading_dx(heading) * kGravitarShotScale,
                 heading_dy(heading) * kGravitarShotScale,
                 kShotLife};
  while (s.alive)
    if (const int hit = gravitar_shot_step(*this, s); hit >= 0) return hit;
  return -1;
}

double GravitarEnv::move_shots(GravitarStepInfo& info) {
  double reward = 0;
  for (GravitarShot& s : shots_) {
    if (!s.alive) continue;
    const int hit = gravitar_shot_step(*this, s);
    if (hit < 0) continue;
    bunkers_[hit].alive = false;
    info.bunkers_destroyed += 1;
    reward += kBunkerReward;
  }
  return reward;
}

// A bunker fires when its pause is over and the ship is above it within range, aiming at the
// ship plus a random offset of up to 3 units on each axis.
void GravitarEnv::fire_bunkers() {
  for (GravitarBunker& b : bunkers_) {
    if (!b.alive) continue;
    if (b.reload > 0) {
      b.reload -= 1;
      continue;
    }
    const int sx = gravitar_box_cx(b.x), sy = b.y * kSub - kGravitarShotHalf;
    if (y_ >= sy || std::abs(wrap_dx(x_, sx)) > kBunkerRange * kSub) continue;
    auto slot = std::find_if(enemy_shots_.begin(), enemy_shots_.end(), [](const GravitarShot& s) { return !s.alive; });
    if (slot == enemy_shots_.end()) continue;
    const int tx = x_ + rng_.between(-3, 3) * kSub, ty = y_ + rng_.between(-3, 3) * kSub;
    const int64_t dx = wrap_dx(tx, sx), dy = ty - sy;
    const int64_t len = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(dx * dx + dy * dy))));
    *slot = {true,
             sx,
             sy,
             static_cast<int>(dx * kEnemyShotSpeed / len),
             static_cast<int>(dy * kEnemyShotSpeed / len),
             kEnemyShotLife};
    b.reload = bunker_reload_draw();
  }
}

// Bunker shots fly straight (0.75 units a step, less than the ship's box, so none passes
// through it) and die on the ground, above the field or when their life runs out.
bool GravitarEnv::move_enemy_shots(GravitarStepInfo& info) {
  bool hit = false;
  for (GravitarShot& s : enemy_shots_) {
    if (!s.alive) continue;
    s.x = gravitar_wrap_x(s.x + s.vx);
    s.y += s.vy;
    s.life -= 1;
    if (s.y < 0 || s.y >= ground(gravitar_column(s.x)) * kSub || s.life <= 0) {
      s.alive = false;
      continue;
    }
    if (std::abs(wrap_dx(s.x, x_)) < kShipHalf + kGravitarShotHalf &&
        std::abs(s.y - y_) < kShipHalf + kGravitarShotHalf) {
      s.alive = false;
      if (shield_)
        info.shots_blocked += 1;
      else
        hit = true;
    }
  }
  return hit;
}

bool GravitarEnv::crashed() const {
  const int bottom = y_ + kShipHalf;
  for (int c = gravitar_column(x_ - kShipHalf), last = gravitar_column(x_ + kShipHalf - 1);; c = (c + 1) % kWidth) {
    if (bottom > ground_[c] * kSub) return true;
    if (c == last) break;
  }
  auto touches = [&](int left, int top) {
    return std::abs(wrap_dx(x_, gravitar_box_cx(left))) < kShipHalf + kGravitarBoxHalfW &&
           std::abs(y_ - gravitar_box_cy(top)) < kShipHalf + kGravitarBoxHalfH;
  };
  for (const GravitarBunker& b : bunkers_)
    if (b.alive && touches(b.x, b.y)) return true;
  for (const GravitarTank& t : tanks_)
    if (t.alive && touches(t.x, t.y)) return true;
  return false;
}

GravitarStepResult GravitarEnv::step(int action) {
  GravitarStepResult r;
  const GameStep s = advance(action, &r.info);
  r.reward = s.reward;
  r.done = s.done;
  r.observation = observation();
  return r;
}

GameStep GravitarEnv::advance(int action, GravitarStepInfo* info_out) {
  check(!done_, "GravitarEnv::step", "the episode has ended (step {}, lives {}); call reset(seed)", steps_, lives_);
  const ActionEffect move = action_effect(action);
  GravitarStepInfo info;
  double reward = 0;

  // 1. Controls: rotate, then thrust or shield (each costs fuel), then gravity and motion.
  heading_ = (heading_ + move.dx + kHeadings) % kHeadings;
  shield_ = move.dy > 0;
  if (move.dy < 0) {
    vx_ += kGravitarDirX[heading_];
    vy_ += kGravitarDirY[heading_];
    fuel_ = std::max(0, fuel_ - kThrustFuel);
  } else if (move.dy > 0) {
    fuel_ = std::max(0, fuel_ - kShieldFuel);
  }
  vy_ += gravity();
  vx_ = std::clamp(vx_, -kMaxSpeed, kMaxSpeed);
  vy_ = std::clamp(vy_, -kMaxSpeed, kMaxSpeed);
  x_ = gravitar_wrap_x(x_ + vx_);
  y_ += vy_;
  if (y_ < kCeiling) y_ = kCeiling, vy_ = std::max(vy_, 0);

  // 2. The ship's shots: a new one from its nose, then every shot flies.
  if (reload_ > 0) reload_ -= 1;
  if (move.fire && reload_ == 0) {
    auto slot = std::find_if(shots_.begin(), shots_.end(), [](const GravitarShot& s) { return !s.alive; });
    if (slot != shots_.end()) {
      *slot = {true,
               gravitar_wrap_x(x_ + kGravitarDirX[heading_] * kGravitarShotScale),
               y_ + kGravitarDirY[heading_] * kGravitarShotScale,
               kGravitarDirX[heading_] * kGravitarShotScale,
               kGravitarDirY[heading_] * kGravitarShotScale,
               kShotLife};
      reload_ = kReload;
      info.shots_fired = 1;
    }
  }
  reward += move_shots(info);

  // 3. The tractor beam collects the tanks below the raised shield.
  if (shield_) {
    for (GravitarTank& t : tanks_) {
      const int below = t.y * kSub - y_;
      if (t.alive && std::abs(wrap_dx(gravitar_box_cx(t.x), x_)) <= kBeamHalfWidth * kSub && below > 0 &&
          below <= kBeamDepth * kSub) {
        t.alive = false;
        fuel_ = std::min(kMaxFuel, fuel_ + kTankFuel);
        info.tanks_collected += 1;
      }
    }
  }

  // 4. Bunkers fire, their shots fly; 5. the three ways to lose a life.
  if (config_.spawn) fire_bunkers();
  GravitarLifeLoss loss = GravitarLifeLoss::None;
  if (move_enemy_shots(info)) loss = GravitarLifeLoss::Shot;
  if (loss == GravitarLifeLoss::None && crashed()) loss = GravitarLifeLoss::Crash;
  if (loss == GravitarLifeLoss::None && fuel_ == 0) loss = GravitarLifeLoss::Fuel;

  // 6. The last bunker destroyed clears the planet (even in the step a life is lost).
  if (info.bunkers_destroyed > 0 && bunkers_left() == 0) {
    reward += kPlanetBonus;
    info.planet_cleared = true;
  }
  if (loss != GravitarLifeLoss::None) {
    info.life_lost = loss;
    lives_ -= 1;
  }
  if (info.planet_cleared && lives_ > 0) {
    planet_ += 1;
    new_planet();
  }
  if ((info.planet_cleared || loss != GravitarLifeLoss::None) && lives_ > 0) restart_ship();

  steps_ += 1;
  score_ += reward;
  info.truncated = lives_ > 0 && steps_ >= config_.max_steps;
  done_ = lives_ == 0 || steps_ >= config_.max_steps;
  if (info_out) *info_out = info;
  return {reward, done_, info.truncated, loss != GravitarLifeLoss::None};
}

void GravitarEnv::place_ship(int x, int y, int heading, int vx, int vy) {
  check(x >= 0 && x < kGravitarFieldW && y >= kCeiling && y < kHeight * kSub && heading >= 0 && heading < kHeadings &&
            std::abs(vx) <= kMaxSpeed && std::abs(vy) <= kMaxSpeed,
        "GravitarEnv::place_ship",
        "({}, {}) heading {} velocity ({}, {}): need x 0..{}, y {}..{} (sub-units), heading 0..15, |v| <= {}", x, y,
        heading, vx, vy, kGravitarFieldW - 1, kCeiling, kHeight * kSub - 1, kMaxSpeed);
  x_ = x, y_ = y, heading_ = heading, vx_ = vx, vy_ = vy;
}

void GravitarEnv::flatten_terrain(int ground_y) {
  check(ground_y >= 12 && ground_y <= kHeight - 2, "GravitarEnv::flatten_terrain", "ground row {} is outside 12..{}",
        ground_y, kHeight - 2);
  ground_.fill(ground_y);
  for (GravitarBunker& b : bunkers_)
    if (b.alive) b.y = ground_y - kBoxH;
  for (GravitarTank& t : tanks_)
    if (t.alive) t.y = ground_y - kBoxH;
}

int GravitarEnv::seat_box(int x, std::string_view fn) {
  check(x >= 0 && x < kWidth, fn, "left column {} is outside 0..{}", x, kWidth - 1);
  int level = kHeight;
  for (int i = 0; i < kBoxW; ++i) level = std::min(level, ground(x + i));
  for (int i = 0; i < kBoxW; ++i) ground_[(x + i) % kWidth] = level;
  return level - kBoxH;
}

int GravitarEnv::place_bunker(int x, int reload) {
  auto slot = std::find_if(bunkers_.begin(), bunkers_.end(), [](const GravitarBunker& b) { return !b.alive; });
  check(slot != bunkers_.end() && reload >= 0, "GravitarEnv::place_bunker",
        "bunker at column {} reload {}: all {} slots are taken or the reload is negative", x, reload, kMaxBunkers);
  *slot = {true, x, seat_box(x, "GravitarEnv::place_bunker"), reload};
  return static_cast<int>(slot - bunkers_.begin());
}

int GravitarEnv::place_tank(int x) {
  auto slot = std::find_if(tanks_.begin(), tanks_.end(), [](const GravitarTank& t) { return !t.alive; });
  check(slot != tanks_.end(), "GravitarEnv::place_tank", "tank at column {}: all {} slots are taken", x, kTanks);
  *slot = {true, x, seat_box(x, "GravitarEnv::place_tank")};
  return static_cast<int>(slot - tanks_.begin());
}

void GravitarEnv::place_enemy_shot(int x, int y, int vx, int vy) {
  auto slot = std::find_if(enemy_shots_.begin(), enemy_shots_.end(), [](const GravitarShot& s) { return !s.alive; });
  check(slot != enemy_shots_.end() && x >= 0 && x < kGravitarFieldW && y >= 0 && y < kHeight * kSub &&
            std::abs(vx) <= kMaxSpeed && std::abs(vy) <= kMaxSpeed,
        "GravitarEnv::place_enemy_shot",
        "({}, {}) velocity ({}, {}): need a free slot of {}, x 0..{}, y 0..{} (sub-units), |v| <= {}", x, y, vx, vy,
        kMaxEnemyShots, kGravitarFieldW - 1, kHeight * kSub - 1, kMaxSpeed);
  *slot = {true, x, y, vx, vy, kEnemyShotLife};
}

void GravitarEnv::set_fuel(int fuel) {
  check(fuel >= 1 && fuel <= kMaxFuel, "GravitarEnv::set_fuel", "{} is outside 1..{}", fuel, kMaxFuel);
  fuel_ = fuel;
}

}  // namespace hm::arcade
