// What the agent sees (the feature vector) and what a person sees (the 40 x 32 frame).
#include <algorithm>
#include <cmath>

#include "harmonic/data/arcade/doubledunk_env.h"

namespace hm::arcade {
namespace {

using DunkEnv = DoubleDunkEnv;

// Court positions to about [-1, 1] around the centre; offsets by the court's size.
float doubledunk_cx(int x) { return static_cast<float>(x - DunkEnv::kWidth / 2) / (DunkEnv::kWidth / 2); }
float doubledunk_cy(int y) { return static_cast<float>(y - DunkEnv::kHeight / 2) / (DunkEnv::kHeight / 2); }
// The farthest a player can be from the basket: a far corner, (2, 60) from (40, 6), is 66 units.
constexpr double kDoubleDunkFarthest = 70;
float doubledunk_clip01(double v) { return static_cast<float>(std::clamp(v, 0.0, 1.0)); }

}  // namespace

// Positions, the ball (who holds it, where it flies, a shot's chance and worth), the clocks and
// the score, then quantities the rules compute from the positions (distances to the basket and
// to the nearest defender, shot chances, steal threats), so the rules are visible as they act.
const std::vector<std::string>& DoubleDunkEnv::names() {
  // clang-format off
  static const std::vector<std::string> n = {
      "you_x", "you_y", "mate_x", "mate_y", "opp1_x", "opp1_y", "opp2_x", "opp2_y",            // 0-7
      "mate_dx", "mate_dy", "opp1_dx", "opp1_dy", "opp2_dx", "opp2_dy",                        // 8-13
      "ball_you", "ball_mate", "ball_opp1", "ball_opp2", "ball_flying", "ball_x", "ball_y",     // 14-20
      "shot_flying", "pass_flying", "pass_to_you", "pass_to_mate", "pass_to_opp1", "pass_to_opp2",  // 21-26
      "shot_p", "shot_points", "shot_team",                                                    // 27-29
      "offense", "shot_clock", "time_left", "points_for", "points_against", "margin",          // 30-35
      "hold_steps", "ball_called",                                                             // 36-37
      "you_basket_distance", "you_beyond_arc", "you_shot_p", "you_defender_distance",          // 38-41
      "mate_shot_p", "mate_defender_distance", "holder_shot_p", "holder_defender_distance",    // 42-45
      "holder_steal_threats", "you_can_swipe",                                                 // 46-47
  };
  // clang-format on
  return n;
}

std::vector<float> DoubleDunkEnv::observation() const {
  std::vector<float> o;
  o.reserve(kObservationSize);
  for (const DoubleDunkPos& p : pos_) o.push_back(doubledunk_cx(p.x)), o.push_back(doubledunk_cy(p.y));
  for (int p = 1; p < kPlayers; ++p) {
    o.push_back(static_cast<float>(pos_[p].x - pos_[kYou].x) / kWidth);
    o.push_back(static_cast<float>(pos_[p].y - pos_[kYou].y) / kHeight);
  }
  const int h = holder();
  for (int p = 0; p < kPlayers; ++p) o.push_back(h == p ? 1.f : 0.f);
  o.push_back(h < 0 ? 1.f : 0.f);
  const DoubleDunkPos ball_at = h >= 0 ? pos_[h] : DoubleDunkPos{ball_.x, ball_.y};
  o.push_back(doubledunk_cx(ball_at.x));
  o.push_back(doubledunk_cy(ball_at.y));
  const bool shot = ball_.state == DoubleDunkBallState::Shot, pass = ball_.state == DoubleDunkBallState::Pass;
  o.push_back(shot ? 1.f : 0.f);
  o.push_back(pass ? 1.f : 0.f);
  for (int p = 0; p < kPlayers; ++p) o.push_back(pass && ball_.target == p ? 1.f : 0.f);
  o.push_back(shot ? static_cast<float>(ball_.shot_p) : 0.f);
  o.push_back(shot ? static_cast<float>(ball_.shot_points) / 3.f : 0.f);
  o.push_back(shot ? (team_of(ball_.shooter) == 0 ? 1.f : -1.f) : 0.f);
  o.push_back(offense_ == 0 ? 1.f : -1.f);
  o.push_back(static_cast<float>(shot_clock_) / kShotClock);
  o.push_back(static_cast<float>(config_.max_steps - steps_) / static_cast<float>(config_.max_steps));
  // A last basket can overshoot the target (20 + 3): the scores are clipped to it.
  o.push_back(doubledunk_clip01(static_cast<double>(points_[0]) / target_score_));
  o.push_back(doubledunk_clip01(static_cast<double>(points_[1]) / target_score_));
  o.push_back(static_cast<float>(std::clamp(static_cast<double>(points_[0] - points_[1]) / target_score_, -1.0, 1.0)));
  o.push_back(doubledunk_clip01(hold_steps_ / 16.0));
  o.push_back(called_ ? 1.f : 0.f);
  o.push_back(static_cast<float>(basket_distance(pos_[kYou]) / kDoubleDunkFarthest));
  o.push_back(shot_value(pos_[kYou]) == 3 ? 1.f : 0.f);
  o.push_back(static_cast<float>(shot_probability(kYou)));
  o.push_back(doubledunk_clip01(nearest_defender(kYou) / 40.0));
  o.push_back(static_cast<float>(shot_probability(kMate)));
  o.push_back(doubledunk_clip01(nearest_defender(kMate) / 40.0));
  o.push_back(h >= 0 ? static_cast<float>(shot_probability(h)) : 0.f);
  o.push_back(h >= 0 ? doubledunk_clip01(nearest_defender(h) / 40.0) : 0.f);
  int threats = 0;
  if (h >= 0)
    for (int d : {2 * (1 - offense_), 2 * (1 - offense_) + 1}) threats += distance(pos_[d], pos_[h]) <= kStealReach;
  o.push_back(static_cast<float>(threats) / 2.f);
  o.push_back(offense_ == 1 && h >= 0 && distance(pos_[kYou], pos_[h]) <= kSwipeReach ? 1.f : 0.f);
  return o;
}

// Half resolution (1 pixel = 2 x 2 units). Floor 50, the three-point arc 90, the basket 255;
// players as 2 x 2 blocks (you 240, teammate 190, opponents 120), the ball 255 beside its
// holder or where it flies; the top row counts your points from the left and the opponents'
// from the right, the bottom row is the shot clock.
std::vector<uint8_t> DoubleDunkEnv::render() const {
  std::vector<uint8_t> f(static_cast<size_t>(kFrameW) * kFrameH, 50);
  auto put = [&](int c, int r, uint8_t v) {
    if (c >= 0 && c < kFrameW && r >= 0 && r < kFrameH) f[static_cast<size_t>(r) * kFrameW + c] = v;
  };
  for (int r = 0; r < kFrameH; ++r)
    for (int c = 0; c < kFrameW; ++c) {
      const double d = distance({2 * c + 1, 2 * r + 1}, {kBasketX, kBasketY});
      if (std::fabs(d - kArcRadius) < 1.0) put(c, r, 90);
    }
  put(kBasketX / 2, kBasketY / 2, 255);
  put(kBasketX / 2 - 1, kBasketY / 2, 255);
  const uint8_t shade[kPlayers] = {240, 190, 120, 120};
  for (int p = kPlayers - 1; p >= 0; --p)
    for (int dr = 0; dr < 2; ++dr)
      for (int dc = 0; dc < 2; ++dc) put(pos_[p].x / 2 - 1 + dc, pos_[p].y / 2 - 1 + dr, shade[p]);
  const int h = holder();
  if (h >= 0)
    put(pos_[h].x / 2 + 1, pos_[h].y / 2 - 1, 255);
  else
    put(ball_.x / 2, ball_.y / 2, 255);
  for (int i = 0; i < std::min(points_[0], kFrameW / 2); ++i) put(i, 0, 200);
  for (int i = 0; i < std::min(points_[1], kFrameW / 2); ++i) put(kFrameW - 1 - i, 0, 140);
  const int bar = kFrameW * shot_clock_ / kShotClock;
  for (int c = 0; c < kFrameW; ++c) put(c, kFrameH - 1, c < bar ? 200 : 0);
  return f;
}

}  // namespace hm::arcade
