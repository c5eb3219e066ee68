// The arcade stand-in games by name: what the study's `game` option, the offline data sets, the
// rollouts and `harmonic demo arcade --game` look up. Each game contributes one GameInfo from its
// own files (<game>_game_info()); games.cpp lists them.
//
// Policy specs (make_policy): "random" (uniform over the 18 actions, every game), or one of the
// game's scripted policies ("expert", ...), each optionally ":<epsilon>" in [0, 1]: with
// probability epsilon a uniform random action instead ("expert:0.1").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/data/arcade/game.h"

namespace hm::arcade {

// One behaviour of an offline data set's mixture.
struct MixtureComponent {
  std::string policy;  // a make_policy spec
  double weight = 1;   // relative frequency of its episodes
};

struct GameInfo {
  std::string name;        // "seaquest": the study's and the cache file's name
  std::string atari_name;  // "Seaquest": the column of the paper's Table 2
  int observation_size = 0;
  std::unique_ptr<Game> (*make)(const GameConfig& config) = nullptr;
  // The game's scripted policies by name, without ":<epsilon>" ("random" is handled for every
  // game); nullptr for a name the game does not have.
  std::unique_ptr<Policy> (*make_scripted)(std::string_view name) = nullptr;
  // The names make_scripted knows, for error messages; "expert" among them (the top end of the
  // normalised return, policy.h).
  std::vector<std::string> scripted;
  // The data set's behaviour mixture: episodes from poor to good play, weighted so that the
  // *steps* spread from random to expert (better policies play longer).
  std::vector<MixtureComponent> (*default_mixture)() = nullptr;
  // Bumped when the game's rules or its mixture change, so cached data sets are regenerated.
  int format_version = 1;
};

// Every game, Seaquest first (the study's original column).
const std::vector<GameInfo>& games();
// Throws hm::Error naming the known games.
const GameInfo& game_info(std::string_view name);
std::unique_ptr<Game> make_game(std::string_view name, const GameConfig& config = {});
// "random", or a scripted policy of the game, optionally ":<epsilon>"; throws naming the specs.
std::unique_ptr<Policy> make_policy(std::string_view game, const std::string& spec);

// The per-game entries (each in its game's files).
GameInfo seaquest_game_info();
GameInfo bankheist_game_info();
GameInfo doubledunk_game_info();
GameInfo gravitar_game_info();

}  // namespace hm::arcade
