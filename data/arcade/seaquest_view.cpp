// What the agent sees (the feature vector) and what a person sees (the 40 x 32 frame).
#include <fmt/format.h>

#include <algorithm>

#include "harmonic/data/arcade/seaquest_env.h"

namespace hm::arcade {
namespace seaquest_view {
namespace {  // internal linkage: inlined, and no name clash in a unity batch

constexpr float kDepth = SeaquestEnv::kBottomY - SeaquestEnv::kSurfaceY;  // 48 units of water

}  // namespace
}  // namespace seaquest_view

// 8 own features, then 8 per lane. Offsets are (entity - submarine) / field size, so they lie
// in about [-1, 1]; an absent entity has presence 0 and zeros elsewhere.
const std::vector<std::string>& SeaquestEnv::observation_names() const {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"x", "depth", "facing", "oxygen", "divers_held", "lives", "torpedo", "submerged"};
    for (int lane = 0; lane < kLanes; ++lane)
      for (const char* f :
           {"dy", "enemy", "enemy_dx", "enemy_velocity", "enemy_kind", "diver", "diver_dx", "diver_dir"})
        n.push_back(fmt::format("lane{}_{}", lane, f));
    return n;
  }();
  return names;
}

std::vector<float> SeaquestEnv::observation() const {
  std::vector<float> o;
  o.reserve(kObservationSize);
  o.push_back(static_cast<float>(sub_x_) / kWidth);
  o.push_back(static_cast<float>(sub_y_ - kSurfaceY) / seaquest_view::kDepth);
  o.push_back(static_cast<float>(facing_));
  o.push_back(static_cast<float>(oxygen_) / kMaxOxygen);
  o.push_back(static_cast<float>(divers_held_) / kMaxDivers);
  o.push_back(static_cast<float>(lives_) / static_cast<float>(config_.lives));
  o.push_back(torpedo_.alive ? 1.f : 0.f);
  o.push_back(submerged_ ? 1.f : 0.f);
  for (int lane = 0; lane < kLanes; ++lane) {
    const Enemy& e = enemies_[lane];
    const Diver& d = divers_[lane];
    o.push_back(static_cast<float>(lane_top(lane) - sub_y_) / seaquest_view::kDepth);
    o.push_back(e.alive ? 1.f : 0.f);
    o.push_back(e.alive ? static_cast<float>(e.x - sub_x_) / kWidth : 0.f);
    o.push_back(e.alive ? static_cast<float>(e.dir * e.speed) / 4.f : 0.f);
    o.push_back(e.alive ? static_cast<float>(e.kind) : 0.f);
    o.push_back(d.alive ? 1.f : 0.f);
    o.push_back(d.alive ? static_cast<float>(d.x - sub_x_) / kWidth : 0.f);
    o.push_back(d.alive ? static_cast<float>(d.dir) : 0.f);
  }
  return o;
}

// Half resolution (1 pixel = 2 x 2 units). Sky 0, water 40, entities by kind, the oxygen bar
// along the bottom row and one dot per diver held in the top row.
std::vector<uint8_t> SeaquestEnv::render() const {
  std::vector<uint8_t> f(static_cast<size_t>(kFrameW) * kFrameH, 40);
  auto box = [&](int x, int y, int w, int h, uint8_t v) {
    const int c0 = std::max(0, x / 2), c1 = std::min(kFrameW, (x + w + 1) / 2);
    const int r0 = std::max(0, y / 2), r1 = std::min(kFrameH, (y + h + 1) / 2);
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c) f[static_cast<size_t>(r) * kFrameW + c] = v;
  };
  box(0, 0, kWidth, kSurfaceY, 0);  // sky above the surface
  for (int lane = 0; lane < kLanes; ++lane) {
    if (divers_[lane].alive) box(divers_[lane].x, lane_top(lane), kEntityW, kEntityH, 110);
    if (enemies_[lane].alive)
      box(enemies_[lane].x, lane_top(lane), kEntityW, kEntityH, enemies_[lane].kind == 0 ? 170 : 210);
  }
  if (torpedo_.alive) box(torpedo_.x, torpedo_.y, kTorpedoW, kTorpedoH, 240);
  box(sub_x_, sub_y_, kSubW, kSubH, 255);
  const int bar = kFrameW * oxygen_ / kMaxOxygen;
  for (int c = 0; c < kFrameW; ++c) f[static_cast<size_t>(kFrameH - 1) * kFrameW + c] = c < bar ? 200 : 0;
  for (int i = 0; i < divers_held_; ++i) f[static_cast<size_t>(1 + 2 * i)] = 110;
  return f;
}

}  // namespace hm::arcade
