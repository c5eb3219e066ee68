// Seaquest's entry in the list of games (games.h).
#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/seaquest_env.h"
#include "harmonic/data/arcade/seaquest_policies.h"

namespace hm::arcade {

GameInfo seaquest_game_info() {
  GameInfo info;
  info.name = "seaquest";
  info.atari_name = "Seaquest";
  info.observation_size = SeaquestEnv::kObservationSize;
  info.make = [](const GameConfig& config) -> std::unique_ptr<Game> { return std::make_unique<SeaquestEnv>(config); };
  info.make_scripted = make_seaquest_policy;
  info.scripted = {"expert", "careless"};
  info.default_mixture = seaquest_default_mixture;
  info.format_version = 1;
  return info;
}

}  // namespace hm::arcade
