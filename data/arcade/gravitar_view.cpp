// What the agent sees (the feature vector) and what a person sees (the 40 x 32 frame).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "harmonic/data/arcade/gravitar_env.h"

namespace hm::arcade {
namespace {

constexpr float kGravitarViewSub = GravitarEnv::kSub;
constexpr float kGravitarViewHalfW = GravitarEnv::kWidth * GravitarEnv::kSub / 2;  // the farthest x offset
constexpr float kGravitarViewH = GravitarEnv::kHeight * GravitarEnv::kSub;
constexpr int kGravitarViewBunkers = 4, kGravitarViewTanks = 2;
constexpr int kGravitarTerrainOffsets[] = {-12, -8, -4, 0, 4, 8, 12};  // columns around the ship
constexpr float kGravitarMaxReload = 70;                               // the longest pause a bunker draws

// The indices of the alive entities, nearest to the ship first (ties by index), at most n.
template <typename T>
std::vector<int> gravitar_nearest(const GravitarEnv& env, const T& items, int n) {
  std::vector<std::pair<int, int>> order;  // (squared distance in units, index)
  for (int i = 0; i < static_cast<int>(items.size()); ++i) {
    if (!items[i].alive) continue;
    const int dx = GravitarEnv::wrap_dx(items[i].x * GravitarEnv::kSub, env.ship_x()) / GravitarEnv::kSub;
    const int dy = (items[i].y * GravitarEnv::kSub - env.ship_y()) / GravitarEnv::kSub;
    order.emplace_back(dx * dx + dy * dy, i);
  }
  std::sort(order.begin(), order.end());
  std::vector<int> out;
  for (int i = 0; i < std::min(n, static_cast<int>(order.size())); ++i) out.push_back(order[i].second);
  return out;
}

}  // namespace

// 11 own features, 7 terrain rows, 4 bunkers x 4 + the bunkers left, 2 tanks x 3, 3 bunker
// shots x 5, 2 own shots x 4. Offsets are (thing - ship) over half the planet's width or over
// its height, so they lie in about [-1, 1]; an absent thing is all zeros (a live own shot
// always has a non-zero velocity).
const std::vector<std::string>& GravitarEnv::observation_names() const {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"x",    "y",     "vx",      "vy",     "heading_x", "heading_y",
                                  "fuel", "lives", "gravity", "reload", "clearance"};
    for (int dx : kGravitarTerrainOffsets) n.push_back(fmt::format("ground_{}{}", dx < 0 ? "m" : "p", std::abs(dx)));
    for (int i = 0; i < kGravitarViewBunkers; ++i)
      for (const char* f : {"", "_dx", "_dy", "_reload"}) n.push_back(fmt::format("bunker{}{}", i, f));
    n.push_back("bunkers_left");
    for (int i = 0; i < kGravitarViewTanks; ++i)
      for (const char* f : {"", "_dx", "_dy"}) n.push_back(fmt::format("tank{}{}", i, f));
    for (int i = 0; i < kMaxEnemyShots; ++i)
      for (const char* f : {"", "_dx", "_dy", "_vx", "_vy"}) n.push_back(fmt::format("bunker_shot{}{}", i, f));
    for (int i = 0; i < kMaxShots; ++i)
      for (const char* f : {"_dx", "_dy", "_vx", "_vy"}) n.push_back(fmt::format("shot{}{}", i, f));
    return n;
  }();
  return names;
}

std::vector<float> GravitarEnv::observation() const {
  std::vector<float> o;
  o.reserve(kObservationSize);
  const int col = x_ / kSub;
  auto off_x = [&](int x) { return static_cast<float>(wrap_dx(x, x_)) / kGravitarViewHalfW; };
  auto off_y = [&](int y) { return static_cast<float>(y - y_) / kGravitarViewH; };
  o.push_back(static_cast<float>(x_) / (kWidth * kSub));
  o.push_back(static_cast<float>(y_) / kGravitarViewH);
  o.push_back(static_cast<float>(vx_) / kMaxSpeed);
  o.push_back(static_cast<float>(vy_) / kMaxSpeed);
  o.push_back(static_cast<float>(heading_dx(heading_)) / 16);
  o.push_back(static_cast<float>(-heading_dy(heading_)) / 16);  // up is +1
  o.push_back(static_cast<float>(fuel_) / kMaxFuel);
  o.push_back(static_cast<float>(lives_) / static_cast<float>(config_.lives));
  o.push_back(static_cast<float>(gravity()) / kMaxGravity);
  o.push_back(static_cast<float>(reload_) / kReload);
  o.push_back(off_y(ground(col) * kSub));
  for (int dx : kGravitarTerrainOffsets) o.push_back(off_y(ground(col + dx) * kSub));
  const std::vector<int> near_bunkers = gravitar_nearest(*this, bunkers_, kGravitarViewBunkers);
  for (int i = 0; i < kGravitarViewBunkers; ++i) {
    if (i >= static_cast<int>(near_bunkers.size())) {
      o.insert(o.end(), 4, 0.f);
      continue;
    }
    const GravitarBunker& b = bunkers_[near_bunkers[i]];
    o.push_back(1.f);
    o.push_back(off_x(b.x * kSub + kBoxW * kSub / 2));
    o.push_back(off_y(b.y * kSub));
    o.push_back(static_cast<float>(b.reload) / kGravitarMaxReload);
  }
  o.push_back(static_cast<float>(bunkers_left()) / kMaxBunkers);
  const std::vector<int> near_tanks = gravitar_nearest(*this, tanks_, kGravitarViewTanks);
  for (int i = 0; i < kGravitarViewTanks; ++i) {
    if (i >= static_cast<int>(near_tanks.size())) {
      o.insert(o.end(), 3, 0.f);
      continue;
    }
    const GravitarTank& t = tanks_[near_tanks[i]];
    o.push_back(1.f);
    o.push_back(off_x(t.x * kSub + kBoxW * kSub / 2));
    o.push_back(off_y(t.y * kSub));
  }
  // Shots are in sub-units already: nearest bunker shots first.
  std::vector<std::pair<int64_t, int>> shot_order;
  for (int i = 0; i < kMaxEnemyShots; ++i) {
    const GravitarShot& s = enemy_shots_[i];
    if (!s.alive) continue;
    const int64_t dx = wrap_dx(s.x, x_), dy = s.y - y_;
    shot_order.emplace_back(dx * dx + dy * dy, i);
  }
  std::sort(shot_order.begin(), shot_order.end());
  for (int i = 0; i < kMaxEnemyShots; ++i) {
    if (i >= static_cast<int>(shot_order.size())) {
      o.insert(o.end(), 5, 0.f);
      continue;
    }
    const GravitarShot& s = enemy_shots_[shot_order[i].second];
    o.push_back(1.f);
    o.push_back(off_x(s.x));
    o.push_back(off_y(s.y));
    o.push_back(static_cast<float>(s.vx) / kEnemyShotSpeed);
    o.push_back(static_cast<float>(s.vy) / kEnemyShotSpeed);
  }
  for (const GravitarShot& s : shots_) {
    if (!s.alive) {
      o.insert(o.end(), 4, 0.f);
      continue;
    }
    o.push_back(off_x(s.x));
    o.push_back(off_y(s.y));
    o.push_back(static_cast<float>(s.vx) / (16 * 16));
    o.push_back(static_cast<float>(s.vy) / (16 * 16));
  }
  return o;
}

// Half resolution (1 pixel = 2 x 2 units). Sky 0, ground 90, tanks 140, bunkers 200, bunker
// shots 170, the ship's shots 230, the ship 255 (180 with the shield up); the fuel gauge runs
// along the top row.
std::vector<uint8_t> GravitarEnv::render() const {
  std::vector<uint8_t> f(static_cast<size_t>(kFrameW) * kFrameH, 0);
  auto px = [&](int ux, int uy, uint8_t v) {  // a point in units
    const int c = (((ux % kWidth) + kWidth) % kWidth) / 2, r = uy / 2;
    if (r >= 0 && r < kFrameH) f[static_cast<size_t>(r) * kFrameW + c] = v;
  };
  for (int c = 0; c < kFrameW; ++c) {
    const int top = std::min(ground(2 * c), ground(2 * c + 1)) / 2;
    for (int r = top; r < kFrameH; ++r) f[static_cast<size_t>(r) * kFrameW + c] = 90;
  }
  auto box = [&](int x, int y, uint8_t v) {
    for (int dy = 0; dy < kBoxH; ++dy)
      for (int dx = 0; dx < kBoxW; ++dx) px(x + dx, y + dy, v);
  };
  for (const GravitarTank& t : tanks_)
    if (t.alive) box(t.x, t.y, 140);
  for (const GravitarBunker& b : bunkers_)
    if (b.alive) box(b.x, b.y, 200);
  for (const GravitarShot& s : enemy_shots_)
    if (s.alive) px(s.x / kSub, s.y / kSub, 170);
  for (const GravitarShot& s : shots_)
    if (s.alive) px(s.x / kSub, s.y / kSub, 230);
  for (int dy = -1; dy <= 0; ++dy)
    for (int dx = -1; dx <= 0; ++dx) px(x_ / kSub + dx, y_ / kSub + dy, shield_ ? 180 : 255);
  const int bar = kFrameW * fuel_ / kMaxFuel;
  for (int c = 0; c < kFrameW; ++c) f[static_cast<size_t>(c)] = c < bar ? 120 : 0;
  return f;
}

}  // namespace hm::arcade
