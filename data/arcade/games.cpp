#include "harmonic/data/arcade/games.h"

#include <fmt/format.h>

#include <cstdlib>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/policy.h"

namespace hm::arcade {
namespace {

std::string known_games() {
  std::string names;
  for (const GameInfo& g : games()) names += (names.empty() ? "" : ", ") + g.name;
  return names;
}

}  // namespace

const std::vector<GameInfo>& games() {
  static const std::vector<GameInfo> list = {
      seaquest_game_info(),
      bankheist_game_info(),
      doubledunk_game_info(),
      gravitar_game_info(),
  };
  return list;
}

const GameInfo& game_info(std::string_view name) {
  for (const GameInfo& g : games())
    if (g.name == name) return g;
  throw_error("game_info", fmt::format("unknown game '{}' (known games: {})", name, known_games()));
}

std::unique_ptr<Game> make_game(std::string_view name, const GameConfig& config) {
  return game_info(name).make(config);
}

std::unique_ptr<Policy> make_policy(std::string_view game, const std::string& spec) {
  const GameInfo& info = game_info(game);
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  std::unique_ptr<Policy> policy;
  if (name == "random")
    policy = std::make_unique<RandomPolicy>();
  else if (info.make_scripted && !name.empty())
    policy = info.make_scripted(name);
  if (policy == nullptr) {
    std::string names = "random";
    for (const std::string& s : info.scripted) names += ", " + s;
    throw_error("make_policy",
                fmt::format("unknown policy '{}' for {} ({}, each with an optional :<epsilon>, e.g. {}:0.1)", spec,
                            info.name, names, info.scripted.empty() ? "random" : info.scripted.front()));
  }
  if (colon == std::string::npos) return policy;
  char* end = nullptr;
  const std::string eps_text = spec.substr(colon + 1);
  const double eps = std::strtod(eps_text.c_str(), &end);
  check(!eps_text.empty() && end && *end == '\0' && eps >= 0 && eps <= 1, "make_policy",
        "'{}': epsilon '{}' must be a number in [0, 1]", spec, eps_text);
  return std::make_unique<NoisyPolicy>(std::move(policy), eps);
}

}  // namespace hm::arcade
