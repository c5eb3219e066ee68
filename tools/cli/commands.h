// Registry of the `harmonic` subcommands. Each tools/cli/cmd_*.cpp adds one at static init:
//   static Registration reg{{"info", add_fn, run_fn}};
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hm::cli {

using Json = nlohmann::json;

struct Command {
  std::string name;
  std::function<void(CLI::App&)> add;  // declares the subcommand and its options
  std::function<int()> run;            // runs it after parsing; returns the exit code
};

std::vector<Command>& commands();

struct Registration {
  explicit Registration(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace hm::cli
