// Scripted policies of the DoubleDunk stand-in (doubledunk_env.h), for the normalised return
// 100 (R - random) / (expert - random) and the offline data set's behaviour mixture ("random"
// and the ":<epsilon>" noise come from games.h's make_policy).
//   expert    a planner: tries each of the 18 actions on a copy of the game in planning mode
//             (no chance event happens; the step reports the chance of losing the ball) and
//             continues the same move without FIRE for `lookahead` steps, then takes the action
//             of the best value: the expected points of a shot it releases (its chance times
//             its worth, not the drawn outcome: the planner does not peek at the random stream),
//             +- 2 points for each chance of winning or losing the ball, and for the position
//             reached 0.8 times the expected points of the shot the holder could take (minus for
//             the opponents'), so it drives to open shots, passes to an open teammate, calls for
//             the ball, guards the holder and swipes at the ball.
//   careless  the same planner blind to the defenders: it values shots by distance alone and
//             ignores the chance of losing the ball, so it shoots over defenders and dribbles
//             into them.
#pragma once
#include <memory>
#include <string_view>

#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

struct DoubleDunkExpertOptions {
  int lookahead = 5;    // steps of the same move after the candidate action
  bool careful = true;  // false: the careless variant (header comment)
};

class DoubleDunkExpert : public Policy {
 public:
  explicit DoubleDunkExpert(DoubleDunkExpertOptions options = {}) : options_(options) {}
  // Throws hm::Error for a game other than DoubleDunkEnv.
  int act(const Game& game) override;

 private:
  DoubleDunkExpertOptions options_;
};

// "expert" or "careless"; nullptr for another name (GameInfo::make_scripted).
std::unique_ptr<Policy> make_doubledunk_policy(std::string_view name);

}  // namespace hm::arcade
