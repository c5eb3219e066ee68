// What the agent sees (the feature vector) and what a person sees (the 40 x 32 frame) of the
// BankHeist stand-in (bankheist_env.h).
#include <fmt/format.h>

#include <algorithm>

#include "harmonic/data/arcade/bankheist_env.h"

namespace hm::arcade {
namespace {

using BH = BankHeistEnv;

constexpr float kBankheistSpanX = BH::kCols - 1, kBankheistSpanY = BH::kRows - 1;
constexpr int kBankheistFar = 64;  // street distances clip here (the longest seen is 66, most are under 40)

}  // namespace

// 18 own features, then 4 per bank slot and 5 per police slot. Offsets are (thing - car) / the
// city's span, so they lie in [-1, 1]; street distances are scaled by 1/64 (clipped at 1); an empty slot has
// presence 0 and zeros elsewhere.
const std::vector<std::string>& BankHeistEnv::observation_names() const {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"x",         "y",          "heading_dx", "heading_dy",  "fuel",        "lives",
                                  "open_west", "open_north", "open_east",  "open_south",  "exit_dx",     "exit_dy",
                                  "city",      "bank_value", "dynamite",   "dynamite_dx", "dynamite_dy", "fuse"};
    for (int i = 0; i < kMaxBanks; ++i)
      for (const char* f : {"", "_dx", "_dy", "_distance"}) n.push_back(fmt::format("bank{}{}", i, f));
    for (int i = 0; i < kMaxPolice; ++i)
      for (const char* f : {"", "_dx", "_dy", "_distance", "_awake"}) n.push_back(fmt::format("police{}{}", i, f));
    return n;
  }();
  return names;
}

std::vector<float> BankHeistEnv::observation() const {
  std::vector<float> o;
  o.reserve(kObservationSize);
  auto dx = [&](int x) { return static_cast<float>(x - car_x_) / kBankheistSpanX; };
  auto dy = [&](int y) { return static_cast<float>(y - car_y_) / kBankheistSpanY; };
  auto dist = [&](int x, int y) {
    return static_cast<float>(std::min(street_distance(car_x_, car_y_, x, y), kBankheistFar)) / kBankheistFar;
  };
  o.push_back(static_cast<float>(car_x_) / kBankheistSpanX);
  o.push_back(static_cast<float>(car_y_) / kBankheistSpanY);
  o.push_back(static_cast<float>(kDirDx[heading_]));
  o.push_back(static_cast<float>(kDirDy[heading_]));
  o.push_back(static_cast<float>(fuel_) / kMaxFuel);
  o.push_back(static_cast<float>(lives_) / static_cast<float>(config_.lives));
  for (int d = 0; d < 4; ++d) o.push_back(open(car_x_, car_y_, d) ? 1.f : 0.f);
  o.push_back(dx(kCols - 1));
  o.push_back(dy(map_->exit_row));
  // The city matters through the police's speed and noise, which stop changing after city 3.
  o.push_back(static_cast<float>(std::min(city_, 3)) / 3.f);
  o.push_back(static_cast<float>(bank_value()) / kMaxBankReward);
  o.push_back(dynamite_.alive ? 1.f : 0.f);
  o.push_back(dynamite_.alive ? dx(dynamite_.x) : 0.f);
  o.push_back(dynamite_.alive ? dy(dynamite_.y) : 0.f);
  o.push_back(dynamite_.alive ? static_cast<float>(dynamite_.fuse) / kFuse : 0.f);
  for (const Bank& b : banks_) {
    o.push_back(b.alive ? 1.f : 0.f);
    o.push_back(b.alive ? dx(b.x) : 0.f);
    o.push_back(b.alive ? dy(b.y) : 0.f);
    o.push_back(b.alive ? dist(b.x, b.y) : 0.f);
  }
  for (const Police& p : police_) {
    o.push_back(p.alive ? 1.f : 0.f);
    o.push_back(p.alive ? dx(p.x) : 0.f);
    o.push_back(p.alive ? dy(p.y) : 0.f);
    o.push_back(p.alive ? dist(p.x, p.y) : 0.f);
    o.push_back(p.alive ? 1.f - static_cast<float>(p.wake) / kPoliceWake : 0.f);
  }
  return o;
}

// One tile is 2 x 2 pixels, the city at pixel (1, 1): blocks 80, streets 20, the exit a notch
// in the right border; banks 150, waiting police 170, chasing police 200, dynamite 230, the car
// 255. Below the city: the fuel bar (row 29), then a dot per life (left) and per bank robbed in
// this city (right) on row 31.
std::vector<uint8_t> BankHeistEnv::render() const {
  std::vector<uint8_t> f(static_cast<size_t>(kFrameW) * kFrameH, 0);
  auto px = [&](int r, int c) -> uint8_t& { return f[static_cast<size_t>(r) * kFrameW + c]; };
  for (int r = 0; r <= 2 * kRows + 1; ++r)
    for (int c = 0; c < kFrameW; ++c) px(r, c) = 80;
  auto tile = [&](int x, int y, uint8_t v) {
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) px(1 + 2 * y + r, 1 + 2 * x + c) = v;
  };
  for (int t : map_->streets) tile(t % kCols, t / kCols, 20);
  for (int r = 0; r < 2; ++r) px(1 + 2 * map_->exit_row + r, 2 * kCols + 1) = 20;
  for (const Bank& b : banks_)
    if (b.alive) tile(b.x, b.y, 150);
  for (const Police& p : police_)
    if (p.alive) tile(p.x, p.y, p.wake > 0 ? 170 : 200);
  if (dynamite_.alive) tile(dynamite_.x, dynamite_.y, 230);
  tile(car_x_, car_y_, 255);
  const int bar = kFrameW * fuel_ / kMaxFuel;
  for (int c = 0; c < bar; ++c) px(kFrameH - 3, c) = 200;
  for (int i = 0; i < std::min(lives_, kFrameW / 4); ++i) px(kFrameH - 1, 1 + 2 * i) = 255;
  for (int i = 0; i < std::min(robbed_, kFrameW / 4); ++i) px(kFrameH - 1, kFrameW - 2 - 2 * i) = 150;
  return f;
}

}  // namespace hm::arcade
