// The 18 actions of Atari's full action space, in the Fourier head paper's order (Gillman et
// al., section 5, "Decision Transformer"): NOOP, then the eight moves going round the compass
// (LEFT, UPLEFT, UP, UPRIGHT, RIGHT, DOWNRIGHT, DOWN, DOWNLEFT), then the same eight with FIRE,
// then FIRE. Neighbouring indices are neighbouring moves, which is the continuity a Fourier
// head over the 18 bins can use. ALE numbers the same actions differently:
//   ALE: 0 NOOP, 1 FIRE, 2 UP, 3 RIGHT, 4 LEFT, 5 DOWN, 6 UPRIGHT, 7 UPLEFT, 8 DOWNRIGHT,
//        9 DOWNLEFT, 10 UPFIRE, 11 RIGHTFIRE, 12 LEFTFIRE, 13 DOWNFIRE, 14 UPRIGHTFIRE,
//        15 UPLEFTFIRE, 16 DOWNRIGHTFIRE, 17 DOWNLEFTFIRE
// to_ale / from_ale translate (a data set recorded in ALE's order is re-ordered with from_ale).
#pragma once
#include <string_view>

namespace hm::arcade {

inline constexpr int kNumActions = 18;

enum Action : int {
  kNoop = 0,
  kLeft,
  kUpLeft,
  kUp,
  kUpRight,
  kRight,
  kDownRight,
  kDown,
  kDownLeft,
  kLeftFire,
  kUpLeftFire,
  kUpFire,
  kUpRightFire,
  kRightFire,
  kDownRightFire,
  kDownFire,
  kDownLeftFire,
  kFire,
};

// What an action does: a move of (dx, dy) in {-1, 0, 1}^2 (dy = -1 is up, towards the surface)
// and whether it fires.
struct ActionEffect {
  int dx = 0, dy = 0;
  bool fire = false;
};

ActionEffect action_effect(int action);    // throws for an action outside 0..17
int action_of(int dx, int dy, bool fire);  // the inverse of action_effect; throws for |dx|, |dy| > 1
std::string_view action_name(int action);  // "UPLEFTFIRE", ALE's spelling
int to_ale(int action);                    // paper order -> ALE index
int from_ale(int ale_action);              // ALE index -> paper order

}  // namespace hm::arcade
