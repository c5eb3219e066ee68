// Scripted policies of the Gravitar stand-in (gravitar_env.h), for the normalised return and
// the offline data set's behaviour mixture (games.h adds "random" and ":<epsilon>" noise).
//   expert    picks a goal (a point above the nearest tank when fuel runs low, else the firing
//             point nearest the ship from which a shot along one of the downward headings
//             reaches the nearest bunker over clear ground, else a hover point; far from it,
//             the way there runs 12 units above the highest ground), tries each of the 18
//             actions on a copy of the game, keeps those after which `lookahead` NOOPs or shield
//             steps survive and 4 `lookahead` steps of a climbing recovery do not crash, and
//             takes the safe one whose velocity-extrapolated position and heading suit the goal
//             best; it fires when a shot would reach a bunker and raises the tractor beam over
//             a tank
//   careless  the same without the look-ahead and without the shield against shots: bunker
//             shots end its lives
#pragma once
#include <memory>
#include <string_view>

#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

struct GravitarExpertOptions {
  int lookahead = 3;   // steps simulated after each candidate action; 0: no safety check
  int fuel_low = 260;  // below this the expert fetches a tank
  bool shield = true;  // raise the shield against shots (else only to take a tank)
};

class GravitarExpertPolicy : public Policy {
 public:
  explicit GravitarExpertPolicy(GravitarExpertOptions options = {}) : options_(options) {}
  // Throws hm::Error for a game other than GravitarEnv.
  int act(const Game& game) override;

 private:
  GravitarExpertOptions options_;
};

// "expert" or "careless"; nullptr for another name.
std::unique_ptr<Policy> make_gravitar_policy(std::string_view name);

}  // namespace hm::arcade
