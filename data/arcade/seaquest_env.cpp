// The game's rules (seaquest_env.h); the observation and the frame are in seaquest_view.cpp.
#include "harmonic/data/arcade/seaquest_env.h"

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace seaquest_rules {
namespace {  // internal linkage: inlined, and no name clash in a unity batch

constexpr int kStartX = (SeaquestEnv::kWidth - SeaquestEnv::kSubW) / 2;

// Half-open boxes [x, x + w) x [y, y + h) overlap.
bool overlap(int ax, int ay, int aw, int ah, int bx, int by, int bw, int bh) {
  return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

bool off_field(int x, int w) { return x + w <= 0 || x >= SeaquestEnv::kWidth; }

// A swimmer (width kEntityW) has left the field on the side it swims towards; one that has
// just spawned outside the other side has not.
bool swam_out(int x, int dir) { return off_field(x, SeaquestEnv::kEntityW) && (dir > 0) == (x > 0); }

}  // namespace
}  // namespace seaquest_rules

std::string_view life_loss_name(LifeLoss cause) {
  switch (cause) {
    case LifeLoss::None:
      return "none";
    case LifeLoss::Collision:
      return "collision";
    case LifeLoss::Oxygen:
      return "oxygen";
    case LifeLoss::EmptySurface:
      return "empty-surface";
  }
  return "?";
}

SeaquestEnv::SeaquestEnv(SeaquestConfig config) : config_(config) {
  check(config.max_steps >= 1 && config.lives >= 1, "SeaquestEnv", "max_steps {} and lives {} must be >= 1",
        config.max_steps, config.lives);
}

std::vector<float> SeaquestEnv::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/0);
  lives_ = config_.lives;
  wave_ = steps_ = 0;
  kills_ = divers_rescued_ = 0;
  score_ = 0;
  done_ = false;
  sub_x_ = seaquest_rules::kStartX, sub_y_ = kSurfaceY, facing_ = 1;
  oxygen_ = kMaxOxygen, divers_held_ = 0;
  submerged_ = false;
  clear_sea();
  return observation();
}

// Empties the lanes and draws each lane's pause before its first enemy and diver.
void SeaquestEnv::clear_sea() {
  enemies_ = {};
  divers_ = {};
  torpedo_ = {};
  for (int lane = 0; lane < kLanes; ++lane) {
    enemy_timer_[lane] = rng_.between(5, 40);
    diver_timer_[lane] = rng_.between(10, 80);
  }
}

// Enemies get faster with each full crew rescued, up to 4 units per step (half their width,
// so a torpedo's sweep cannot miss them).
int SeaquestEnv::enemy_speed() { return std::min(4, rng_.between(1, 2) + std::min(wave_, 2)); }

void SeaquestEnv::spawn(int lane) {
  if (!enemies_[lane].alive && --enemy_timer_[lane] <= 0) {
    const int dir = rng_.coin() ? 1 : -1;
    const int speed = enemy_speed();
    const int kind = rng_.below(2);
    enemies_[lane] = {true, dir > 0 ? -kEntityW : kWidth, dir, speed, kind};
  }
  if (!divers_[lane].alive && --diver_timer_[lane] <= 0) {
    const int dir = rng_.coin() ? 1 : -1;
    divers_[lane] = {true, dir > 0 ? -kEntityW : kWidth, dir};
  }
}

// Moves the torpedo and kills the first enemy its path crosses. Enemies have already moved,
// so with enemy speed <= kEntityW / 2 no enemy can pass through it unseen.
double SeaquestEnv::move_torpedo(StepInfo& info) {
  if (!torpedo_.alive) return 0;
  const int from = torpedo_.x, to = torpedo_.x + torpedo_.dir * kTorpedoSpeed;
  const int sweep_x = std::min(from, to), sweep_w = kTorpedoSpeed + kTorpedoW;
  int hit = -1;
  for (int lane = 0; lane < kLanes; ++lane) {
    const Enemy& e = enemies_[lane];
    if (!e.alive ||
        !seaquest_rules::overlap(sweep_x, torpedo_.y, sweep_w, kTorpedoH, e.x, lane_top(lane), kEntityW, kEntityH))
      continue;
    // The nearest along the torpedo's direction (lanes do not overlap, so at most one, but
    // say so rather than rely on the geometry).
    if (hit < 0 || (torpedo_.dir > 0 ? e.x < enemies_[hit].x : e.x > enemies_[hit].x)) hit = lane;
  }
  torpedo_.x = to;
  if (hit >= 0) {
    const double reward = enemies_[hit].kind == 0 ? kSharkReward : kSubReward;
    enemies_[hit].alive = false;
    enemy_timer_[hit] = rng_.between(10, 50);
    torpedo_.alive = false;
    info.kills += 1;
    return reward;
  }
  if (seaquest_rules::off_field(torpedo_.x, kTorpedoW)) torpedo_.alive = false;
  return 0;
}

void SeaquestEnv::lose_life(LifeLoss cause, StepInfo& info) {
  info.life_lost = cause;
  lives_ -= 1;
  sub_x_ = seaquest_rules::kStartX, sub_y_ = kSurfaceY;
  oxygen_ = kMaxOxygen, divers_held_ = 0;
  submerged_ = false;
  clear_sea();
}

StepResult SeaquestEnv::step(int action) {
  StepResult r;
  r.reward = advance(action, &r.info);
  r.done = done_;
  r.observation = observation();
  return r;
}

GameStep SeaquestEnv::advance(int action) {
  StepInfo info;
  GameStep s;
  s.reward = advance(action, &info);
  s.done = done_;
  s.truncated = info.truncated;
  s.life_lost = info.life_lost != LifeLoss::None;
  return s;
}

std::vector<GameTally> SeaquestEnv::tallies() const { return {{"kills", kills_}, {"divers rescued", divers_rescued_}}; }

double SeaquestEnv::advance(int action, StepInfo* info_out) {
  check(!done_, "SeaquestEnv::step", "the episode has ended (step {}, lives {}); call reset(seed)", steps_, lives_);
  const ActionEffect move = action_effect(action);
  StepInfo info;
  double reward = 0;

  // 1. The submarine moves (clamped to the field) and turns towards its horizontal move.
  sub_x_ = std::clamp(sub_x_ + move.dx * kSubSpeed, 0, kWidth - kSubW);
  sub_y_ = std::clamp(sub_y_ + move.dy * kSubSpeed, kSurfaceY, kBottomY);
  if (move.dx != 0) facing_ = move.dx;
  if (move.fire && !torpedo_.alive)
    torpedo_ = {true, facing_ > 0 ? sub_x_ + kSubW : sub_x_ - kTorpedoW, sub_y_ + (kSubH - kTorpedoH) / 2, facing_};

  // 2. Enemies and divers swim on and leave at the far side; 3. the torpedo flies.
  for (int lane = 0; lane < kLanes; ++lane) {
    Enemy& e = enemies_[lane];
    if (e.alive) {
      e.x += e.dir * e.speed;
      if (seaquest_rules::swam_out(e.x, e.dir)) e.alive = false, enemy_timer_[lane] = rng_.between(5, 40);
    }
    Diver& d = divers_[lane];
    if (d.alive) {
      d.x += d.dir;
      if (seaquest_rules::swam_out(d.x, d.dir)) d.alive = false, diver_timer_[lane] = rng_.between(10, 80);
    }
  }
  reward += move_torpedo(info);
  if (config_.spawn)
    for (int lane = 0; lane < kLanes; ++lane) spawn(lane);

  // 4. Contacts: an enemy costs a life; a diver is picked up while there is room.
  LifeLoss loss = LifeLoss::None;
  for (int lane = 0; lane < kLanes && loss == LifeLoss::None; ++lane) {
    const Enemy& e = enemies_[lane];
    if (e.alive && seaquest_rules::overlap(sub_x_, sub_y_, kSubW, kSubH, e.x, lane_top(lane), kEntityW, kEntityH))
      loss = LifeLoss::Collision;
    Diver& d = divers_[lane];
    if (d.alive && divers_held_ < kMaxDivers &&
        seaquest_rules::overlap(sub_x_, sub_y_, kSubW, kSubH, d.x, lane_top(lane), kEntityW, kEntityH)) {
      d.alive = false;
      diver_timer_[lane] = rng_.between(10, 80);
      divers_held_ += 1;
      info.divers_picked += 1;
    }
  }

  // 5. Oxygen: drains underwater; surfacing scores the divers held (or costs a life without any).
  if (loss == LifeLoss::None) {
    if (sub_y_ > kSurfaceY) {
      submerged_ = true;
      if (--oxygen_ <= 0) loss = LifeLoss::Oxygen;
    } else {
      if (submerged_) {
        submerged_ = false;
        if (divers_held_ == 0) {
          loss = LifeLoss::EmptySurface;
        } else {
          reward += kDiverBonus * divers_held_;
          if (divers_held_ == kMaxDivers) reward += kFullCrewBonus, wave_ += 1;
          info.divers_rescued = divers_held_;
          divers_held_ = 0;
        }
      }
      oxygen_ = std::min(kMaxOxygen, oxygen_ + kOxygenRefill);
    }
  }
  if (loss != LifeLoss::None) lose_life(loss, info);

  steps_ += 1;
  score_ += reward;
  kills_ += info.kills;
  divers_rescued_ += info.divers_rescued;
  info.truncated = lives_ > 0 && steps_ >= config_.max_steps;
  done_ = lives_ == 0 || steps_ >= config_.max_steps;
  if (info_out) *info_out = info;
  return reward;
}

void SeaquestEnv::place_submarine(int x, int y, int facing) {
  check(x >= 0 && x <= kWidth - kSubW && y >= kSurfaceY && y <= kBottomY && (facing == 1 || facing == -1),
        "SeaquestEnv::place_submarine", "({}, {}) facing {} is outside x 0..{}, y {}..{}, facing +-1", x, y, facing,
        kWidth - kSubW, kSurfaceY, kBottomY);
  sub_x_ = x, sub_y_ = y, facing_ = facing;
  submerged_ = y > kSurfaceY;
}

void SeaquestEnv::place_enemy(int lane, int x, int dir, int speed, int kind) {
  check(lane >= 0 && lane < kLanes && (dir == 1 || dir == -1) && speed >= 1 && speed <= kEntityW / 2 &&
            (kind == 0 || kind == 1) && x > -kEntityW && x < kWidth,
        "SeaquestEnv::place_enemy",
        "lane {} x {} dir {} speed {} kind {}: need lane 0..3, x inside the field, "
        "dir +-1, speed 1..4, kind 0 or 1",
        lane, x, dir, speed, kind);
  enemies_[lane] = {true, x, dir, speed, kind};
}

void SeaquestEnv::place_diver(int lane, int x, int dir) {
  check(lane >= 0 && lane < kLanes && (dir == 1 || dir == -1) && x > -kEntityW && x < kWidth,
        "SeaquestEnv::place_diver", "lane {} x {} dir {}: need lane 0..3, x inside the field, dir +-1", lane, x, dir);
  divers_[lane] = {true, x, dir};
}

void SeaquestEnv::set_oxygen(int oxygen) {
  check(oxygen >= 1 && oxygen <= kMaxOxygen, "SeaquestEnv::set_oxygen", "{} is outside 1..{}", oxygen, kMaxOxygen);
  oxygen_ = oxygen;
}

void SeaquestEnv::set_divers_held(int divers) {
  check(divers >= 0 && divers <= kMaxDivers, "SeaquestEnv::set_divers_held", "{} is outside 0..{}", divers, kMaxDivers);
  divers_held_ = divers;
}

}  // namespace hm::arcade
