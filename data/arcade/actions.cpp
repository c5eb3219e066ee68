#include "harmonic/data/arcade/actions.h"

#include <array>

#include "harmonic/core/error.h"

namespace hm::arcade {
namespace {

struct ActionRow {
  std::string_view name;
  ActionEffect effect;
  int ale;  // the same action's index in ALE's order
};

// Paper order; dy = -1 is up.
constexpr std::array<ActionRow, kNumActions> kActions{{
    {"NOOP", {0, 0, false}, 0},
    {"LEFT", {-1, 0, false}, 4},
    {"UPLEFT", {-1, -1, false}, 7},
    {"UP", {0, -1, false}, 2},
    {"UPRIGHT", {1, -1, false}, 6},
    {"RIGHT", {1, 0, false}, 3},
    {"DOWNRIGHT", {1, 1, false}, 8},
    {"DOWN", {0, 1, false}, 5},
    {"DOWNLEFT", {-1, 1, false}, 9},
    {"LEFTFIRE", {-1, 0, true}, 12},
    {"UPLEFTFIRE", {-1, -1, true}, 15},
    {"UPFIRE", {0, -1, true}, 10},
    {"UPRIGHTFIRE", {1, -1, true}, 14},
    {"RIGHTFIRE", {1, 0, true}, 11},
    {"DOWNRIGHTFIRE", {1, 1, true}, 16},
    {"DOWNFIRE", {0, 1, true}, 13},
    {"DOWNLEFTFIRE", {-1, 1, true}, 17},
    {"FIRE", {0, 0, true}, 1},
}};

const ActionRow& row(int action, std::string_view fn) {
  check(action >= 0 && action < kNumActions, fn, "action {} is outside 0..{}", action, kNumActions - 1);
  return kActions[static_cast<size_t>(action)];
}

}  // namespace

ActionEffect action_effect(int action) { return row(action, "action_effect").effect; }

std::string_view action_name(int action) { return row(action, "action_name").name; }

int to_ale(int action) { return row(action, "to_ale").ale; }

int from_ale(int ale_action) {
  check(ale_action >= 0 && ale_action < kNumActions, "from_ale", "ALE action {} is outside 0..{}", ale_action,
        kNumActions - 1);
  for (int a = 0; a < kNumActions; ++a)
    if (kActions[static_cast<size_t>(a)].ale == ale_action) return a;
  throw_error("from_ale", "unreachable: the table is a permutation");
}

int action_of(int dx, int dy, bool fire) {
  check(dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1, "action_of", "move ({}, {}) is not in {{-1, 0, 1}}^2", dx, dy);
  for (int a = 0; a < kNumActions; ++a) {
    const ActionEffect& e = kActions[static_cast<size_t>(a)].effect;
    if (e.dx == dx && e.dy == dy && e.fire == fire) return a;
  }
  throw_error("action_of", "unreachable: every move with and without fire is in the table");
}

}  // namespace hm::arcade
