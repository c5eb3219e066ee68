// The BankHeist stand-in's rules (bankheist_env.h); the observation and the frame are in
// bankheist_view.cpp.
#include "harmonic/data/arcade/bankheist_env.h"

#include <algorithm>
#include <cstdlib>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace {

using BH = BankHeistEnv;

// The intersections form a 7 x 5 grid; a segment joins two neighbouring ones: 30 horizontal
// segments (row by row) then 28 vertical ones.
constexpr int kBankheistNx = (BH::kCols - 1) / BH::kBlock + 1, kBankheistNy = (BH::kRows - 1) / BH::kBlock + 1;
constexpr int kBankheistHorizontal = (kBankheistNx - 1) * kBankheistNy;
constexpr int kBankheistSegments = kBankheistHorizontal + kBankheistNx * (kBankheistNy - 1);
constexpr int kBankheistStartRow = (kBankheistNy / 2) * BH::kBlock;  // the first city's entry: the middle street

struct BankheistSegment {
  int a = 0, b = 0;  // intersection indices iy * Nx + ix
};

BankheistSegment bankheist_segment(int s) {
  if (s < kBankheistHorizontal) {
    const int iy = s / (kBankheistNx - 1), ix = s % (kBankheistNx - 1);
    return {iy * kBankheistNx + ix, iy * kBankheistNx + ix + 1};
  }
  const int v = s - kBankheistHorizontal, iy = v / kBankheistNx, ix = v % kBankheistNx;
  return {iy * kBankheistNx + ix, (iy + 1) * kBankheistNx + ix};
}

// Every intersection on two or more open segments, and all of them connected.
bool bankheist_plan_ok(const std::array<bool, kBankheistSegments>& open) {
  constexpr int n = kBankheistNx * kBankheistNy;
  std::array<int, n> degree{};
  for (int s = 0; s < kBankheistSegments; ++s)
    if (open[s]) degree[bankheist_segment(s).a] += 1, degree[bankheist_segment(s).b] += 1;
  for (int d : degree)
    if (d < 2) return false;
  std::array<bool, n> seen{};
  std::array<int, n> stack{};
  int top = 0, reached = 1;
  stack[top++] = 0, seen[0] = true;
  while (top > 0) {
    const int i = stack[--top];
    for (int s = 0; s < kBankheistSegments; ++s) {
      if (!open[s]) continue;
      const BankheistSegment seg = bankheist_segment(s);
      const int j = seg.a == i ? seg.b : seg.b == i ? seg.a : -1;
      if (j >= 0 && !seen[j]) seen[j] = true, stack[top++] = j, reached += 1;
    }
  }
  return reached == n;
}

// A city's streets: the full grid less kClosedSegments segments chosen by the stream (none
// without one), with the all-pairs street distances the police and the planner use.
std::shared_ptr<const BH::CityMap> bankheist_make_city(ArcadeRng* rng, int entry_row, int exit_row) {
  std::array<bool, kBankheistSegments> open;
  open.fill(true);
  if (rng) {
    std::array<int, kBankheistSegments> order;
    for (int s = 0; s < kBankheistSegments; ++s) order[s] = s;
    for (int i = kBankheistSegments - 1; i > 0; --i) std::swap(order[i], order[rng->below(i + 1)]);
    int closed = 0;
    for (int s : order) {
      if (closed == BH::kClosedSegments) break;
      open[s] = false;
      if (bankheist_plan_ok(open))
        closed += 1;
      else
        open[s] = true;
    }
  }
  auto map = std::make_shared<BH::CityMap>();
  map->entry_row = entry_row, map->exit_row = exit_row;
  std::array<bool, BH::kCols * BH::kRows> street{};
  auto tile = [](int ix, int iy) { return iy * BH::kBlock * BH::kCols + ix * BH::kBlock; };
  for (int iy = 0; iy < kBankheistNy; ++iy)
    for (int ix = 0; ix < kBankheistNx; ++ix) street[tile(ix, iy)] = true;
  for (int s = 0; s < kBankheistSegments; ++s) {
    if (!open[s]) continue;
    const BankheistSegment seg = bankheist_segment(s);
    const int from = tile(seg.a % kBankheistNx, seg.a / kBankheistNx);
    const int step = s < kBankheistHorizontal ? 1 : BH::kCols;
    for (int k = 1; k < BH::kBlock; ++k) street[from + k * step] = true;
  }
  map->node.fill(-1);
  for (int t = 0; t < BH::kCols * BH::kRows; ++t)
    if (street[t]) map->node[t] = static_cast<int16_t>(map->streets.size()), map->streets.push_back(t);
  // Breadth-first from every street tile (about 150 of them, once per city).
  const size_t n = map->streets.size();
  map->distance.assign(n * n, UINT16_MAX);
  std::vector<int> queue(n);
  for (size_t src = 0; src < n; ++src) {
    uint16_t* d = &map->distance[src * n];
    size_t head = 0, tail = 0;
    queue[tail++] = static_cast<int>(src), d[src] = 0;
    while (head < tail) {
      const int t = map->streets[static_cast<size_t>(queue[head++])];
      const int x = t % BH::kCols, y = t / BH::kCols;
      for (int dir = 0; dir < 4; ++dir) {
        const int nx = x + BH::kDirDx[dir], ny = y + BH::kDirDy[dir];
        if (nx < 0 || nx >= BH::kCols || ny < 0 || ny >= BH::kRows) continue;
        const int m = map->node[static_cast<size_t>(ny * BH::kCols + nx)];
        const int here = map->node[static_cast<size_t>(t)];
        if (m >= 0 && d[m] == UINT16_MAX) d[m] = static_cast<uint16_t>(d[here] + 1), queue[tail++] = m;
      }
    }
  }
  return map;
}

int bankheist_manhattan(int x0, int y0, int x1, int y1) { return std::abs(x0 - x1) + std::abs(y0 - y1); }

}  // namespace

std::string_view bankheist_life_loss_name(BankHeistEnv::LifeLoss cause) {
  switch (cause) {
    case BankHeistEnv::LifeLoss::None:
      return "none";
    case BankHeistEnv::LifeLoss::Police:
      return "police";
    case BankHeistEnv::LifeLoss::Dynamite:
      return "dynamite";
    case BankHeistEnv::LifeLoss::Fuel:
      return "fuel";
  }
  return "?";
}

BankHeistEnv::BankHeistEnv(const GameConfig& config) : config_(config) {
  check(config.max_steps >= 1 && config.lives >= 1, "BankHeistEnv", "max_steps {} and lives {} must be >= 1",
        config.max_steps, config.lives);
  reset(0);  // playable (seed 0) until the first reset
}

std::vector<float> BankHeistEnv::reset(uint64_t seed) {
  rng_ = ArcadeRng(seed, /*stream=*/0);
  lives_ = config_.lives;
  steps_ = city_ = 0;
  score_ = 0;
  done_ = false;
  enter_city(kBankheistStartRow);
  return observation();
}

// A new street plan and exit row; the car at the entrance with full fuel; banks after a pause.
void BankHeistEnv::enter_city(int entry_row) {
  const int exit_row = kBlock * rng_.below(kBankheistNy);
  map_ = bankheist_make_city(&rng_, entry_row, exit_row);
  car_x_ = 0, car_y_ = entry_row, heading_ = kEast;
  fuel_ = kMaxFuel;
  robbed_ = 0;
  banks_ = {};
  for (int& t : bank_timer_) t = rng_.between(1, 10);
  police_ = {};
  dynamite_ = {};
}

void BankHeistEnv::lose_life(LifeLoss cause, Info& info) {
  info.life_lost = cause;
  lives_ -= 1;
  car_x_ = 0, car_y_ = map_->entry_row, heading_ = kEast;
  fuel_ = kMaxFuel;
  police_ = {};
  dynamite_ = {};
}

int BankHeistEnv::bank_value() const { return std::min(kMaxBankReward, kBankReward * (robbed_ + 1)); }
int BankHeistEnv::police_speed() const { return std::min(7, 4 + city_); }
double BankHeistEnv::police_noise() const { return std::max(0.05, 0.25 - 0.05 * city_); }

bool BankHeistEnv::is_street(int x, int y) const {
  return x >= 0 && x < kCols && y >= 0 && y < kRows && node_of(x, y) >= 0;
}

bool BankHeistEnv::open(int x, int y, int dir) const {
  if (dir == kEast && is_exit(x, y)) return true;
  return is_street(x + kDirDx[dir], y + kDirDy[dir]);
}

int BankHeistEnv::street_distance(int x0, int y0, int x1, int y1) const {
  check(is_street(x0, y0) && is_street(x1, y1), "BankHeistEnv::street_distance", "({}, {}) or ({}, {}) is not a street",
        x0, y0, x1, y1);
  return distance_between_nodes(node_of(x0, y0), node_of(x1, y1));
}

// The action's directions in order of preference (a diagonal: the turn across the heading,
// then the other component), then the heading; the first open one, or -1 (stopped at a wall).
int BankHeistEnv::direction_of(int action) const {
  const ActionEffect move = action_effect(action);
  std::array<int, 3> wanted{};
  int n = 0;
  const int h = move.dx < 0 ? kWest : kEast, v = move.dy < 0 ? kNorth : kSouth;
  if (move.dx != 0 && move.dy != 0) {
    const bool across = heading_ == kWest || heading_ == kEast;
    wanted[n++] = across ? v : h;
    wanted[n++] = across ? h : v;
  } else if (move.dx != 0) {
    wanted[n++] = h;
  } else if (move.dy != 0) {
    wanted[n++] = v;
  }
  wanted[n++] = heading_;
  for (int i = 0; i < n; ++i)
    if (open(car_x_, car_y_, wanted[i])) return wanted[i];
  return -1;
}

// One tile towards the car along the streets (ties: west, north, east, south), or with
// probability police_noise() to a random neighbouring street.
void BankHeistEnv::move_police(Police& p) {
  std::array<int, 4> options{};
  int n = 0;
  for (int dir = 0; dir < 4; ++dir)
    if (is_street(p.x + kDirDx[dir], p.y + kDirDy[dir])) options[n++] = dir;
  int pick = options[0];
  if (rng_.uniform() < police_noise()) {
    pick = options[rng_.below(n)];
  } else {
    const int car = node_of(car_x_, car_y_);
    int best = INT32_MAX;
    for (int i = 0; i < n; ++i) {
      const int d = distance_between_nodes(node_of(p.x + kDirDx[options[i]], p.y + kDirDy[options[i]]), car);
      if (d < best) best = d, pick = options[i];
    }
  }
  p.x += kDirDx[pick], p.y += kDirDy[pick];
}

// Empty slots count down their pause, then put a bank on a random free street tile far
// enough from the car (up to 16 draws a step; if all miss, the next step tries again).
void BankHeistEnv::spawn_banks() {
  const int car = node_of(car_x_, car_y_);
  for (int i = 0; i < kMaxBanks; ++i) {
    if (banks_[i].alive) continue;
    if (bank_timer_[i] > 0 && --bank_timer_[i] > 0) continue;
    for (int attempt = 0; attempt < 16; ++attempt) {
      const int t = map_->streets[static_cast<size_t>(rng_.below(static_cast<int>(map_->streets.size())))];
      const int x = t % kCols, y = t / kCols;
      bool free = !(x == 0 && y == map_->entry_row) && distance_between_nodes(map_->node[t], car) >= kBankMinDistance;
      for (const Bank& b : banks_) free = free && !(b.alive && b.x == x && b.y == y);
      for (const Police& p : police_) free = free && !(p.alive && p.x == x && p.y == y);
      if (free) {
        banks_[i] = {true, x, y};
        break;
      }
    }
  }
}

BankHeistEnv::StepResult BankHeistEnv::step(int action) {
  StepResult r;
  const GameStep s = advance(action, &r.info);
  r.reward = s.reward;
  r.done = s.done;
  r.observation = observation();
  return r;
}

GameStep BankHeistEnv::advance(int action, Info* info_out) {
  check(!done_, "BankHeistEnv::advance", "the episode has ended (step {}, lives {}); call reset(seed)", steps_, lives_);
  const ActionEffect move = action_effect(action);
  Info info;
  double reward = 0;

  // 1. The car drives one tile (or out of the exit into the next city).
  const int old_x = car_x_, old_y = car_y_;
  const int dir = direction_of(action);
  if (dir == kEast && is_exit(car_x_, car_y_)) {
    reward += kExitBonusPerBank * robbed_;
    info.city_cleared = true;
    city_ += 1;
    enter_city(map_->exit_row);
  } else {
    if (dir >= 0) car_x_ += kDirDx[dir], car_y_ += kDirDy[dir], heading_ = dir, fuel_ -= 1;
    // 2. Dynamite is dropped where the car was (only when it moved).
    if (move.fire && dir >= 0 && !dynamite_.alive) dynamite_ = {true, old_x, old_y, kFuse};
    // 3. The police wake or chase.
    std::array<int, kMaxPolice> before_x{}, before_y{};
    for (int i = 0; i < kMaxPolice; ++i) {
      Police& p = police_[i];
      before_x[i] = p.x, before_y[i] = p.y;
      if (!p.alive) continue;
      if (p.wake > 0) {
        p.wake -= 1;
        continue;
      }
      p.phase += police_speed();
      if (p.phase >= 8) p.phase -= 8, move_police(p);
    }
    // 4. A bank under the car is robbed; a police car waits in its place.
    for (int i = 0; i < kMaxBanks; ++i) {
      Bank& b = banks_[i];
      if (!b.alive || b.x != car_x_ || b.y != car_y_) continue;
      reward += bank_value();
      robbed_ += 1;
      info.banks_robbed += 1;
      b.alive = false;
      bank_timer_[i] = rng_.between(10, 30);
      for (Police& p : police_)
        if (!p.alive) {
          p = {true, b.x, b.y, kPoliceWake, 0};
          break;
        }
    }
    // 5. The dynamite's fuse burns down; the blast takes police and car alike.
    LifeLoss loss = LifeLoss::None;
    if (dynamite_.alive && --dynamite_.fuse <= 0) {
      for (Police& p : police_)
        if (p.alive && bankheist_manhattan(p.x, p.y, dynamite_.x, dynamite_.y) <= kBlastRadius) {
          p.alive = false;
          reward += kPoliceReward;
          info.police_destroyed += 1;
        }
      if (bankheist_manhattan(car_x_, car_y_, dynamite_.x, dynamite_.y) <= kBlastRadius) loss = LifeLoss::Dynamite;
      dynamite_ = {};
    }
    // 6. An awake police car on the car's tile, or one that swapped tiles with it, catches it.
    for (int i = 0; i < kMaxPolice && loss == LifeLoss::None; ++i) {
      const Police& p = police_[i];
      if (!p.alive || p.wake > 0) continue;
      const bool same = p.x == car_x_ && p.y == car_y_;
      const bool swapped = p.x == old_x && p.y == old_y && before_x[i] == car_x_ && before_y[i] == car_y_;
      if (same || swapped) loss = LifeLoss::Police;
    }
    // 7. An empty tank.
    if (loss == LifeLoss::None && fuel_ <= 0) loss = LifeLoss::Fuel;
    if (loss != LifeLoss::None) lose_life(loss, info);
    if (config_.spawn) spawn_banks();
  }

  steps_ += 1;
  score_ += reward;
  info.truncated = lives_ > 0 && steps_ >= config_.max_steps;
  done_ = lives_ == 0 || steps_ >= config_.max_steps;
  if (info_out) *info_out = info;
  return {.reward = reward, .done = done_, .truncated = info.truncated, .life_lost = info.life_lost != LifeLoss::None};
}

void BankHeistEnv::use_full_grid() { map_ = bankheist_make_city(nullptr, map_->entry_row, map_->exit_row); }

void BankHeistEnv::place_car(int x, int y, int heading) {
  check(is_street(x, y) && heading >= 0 && heading < 4, "BankHeistEnv::place_car",
        "({}, {}) heading {}: need a street tile and a heading 0..3", x, y, heading);
  car_x_ = x, car_y_ = y, heading_ = heading;
}

void BankHeistEnv::place_bank(int slot, int x, int y) {
  check(slot >= 0 && slot < kMaxBanks && is_street(x, y), "BankHeistEnv::place_bank",
        "slot {} at ({}, {}): need slot 0..{} and a street tile", slot, x, y, kMaxBanks - 1);
  banks_[slot] = {true, x, y};
}

void BankHeistEnv::place_police(int slot, int x, int y, int wake) {
  check(slot >= 0 && slot < kMaxPolice && is_street(x, y) && wake >= 0 && wake <= kPoliceWake,
        "BankHeistEnv::place_police", "slot {} at ({}, {}) wake {}: need slot 0..{}, a street tile and wake 0..{}",
        slot, x, y, wake, kMaxPolice - 1, kPoliceWake);
  police_[slot] = {true, x, y, wake, 0};
}

void BankHeistEnv::place_dynamite(int x, int y, int fuse) {
  check(is_street(x, y) && fuse >= 1 && fuse <= kFuse, "BankHeistEnv::place_dynamite",
        "({}, {}) fuse {}: need a street tile and fuse 1..{}", x, y, fuse, kFuse);
  dynamite_ = {true, x, y, fuse};
}

void BankHeistEnv::set_fuel(int fuel) {
  check(fuel >= 1 && fuel <= kMaxFuel, "BankHeistEnv::set_fuel", "{} is outside 1..{}", fuel, kMaxFuel);
  fuel_ = fuel;
}

}  // namespace hm::arcade
