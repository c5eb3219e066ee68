// Scripted policies of the BankHeist stand-in (bankheist_env.h), and its entry in the list of
// games (games.h).
//   expert    picks a goal (the exit when the fuel left is little more than the drive there,
//             else the nearest bank by street distance, else the crossing farthest from the
//             police), tries each of the 18 actions on a copy of the game, then drives on
//             (turning at walls) for `lookahead` steps, drops those that lose a life, takes the
//             safe action whose first step ends nearest the goal (rewards on the way count);
//             it drops dynamite when a chasing police car is close behind.
//   careless  the same without the look-ahead (it drives into police and its own blasts)
// "random" and ":<epsilon>" noise come from games.h's make_policy, as for every game.
#pragma once
#include <memory>
#include <string_view>

#include "harmonic/data/arcade/bankheist_env.h"
#include "harmonic/data/arcade/game.h"
#include "harmonic/data/arcade/games.h"

namespace hm::arcade {

struct BankHeistExpertOptions {
  int lookahead = 3;    // steps driven on after each candidate action; 0: no safety check
  int fuel_margin = 8;  // head for the exit when fuel <= the street distance there + this
};

class BankHeistExpertPolicy : public Policy {
 public:
  explicit BankHeistExpertPolicy(BankHeistExpertOptions options = {}) : options_(options) {}
  int act(const Game& game) override;  // throws for a game other than bankheist

 private:
  BankHeistExpertOptions options_;
};

// "expert" or "careless"; nullptr for another name.
std::unique_ptr<Policy> make_bankheist_policy(std::string_view name);

}  // namespace hm::arcade
