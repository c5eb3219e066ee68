// The `harmonic` command: one executable, one subcommand per tool (see tools/commands.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <string_view>

#include "harmonic/core/build_info.h"
#include "harmonic/core/denormals.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/tools/cli/omp_wait.h"
#include "harmonic/tools/train/did_you_mean.h"

int main(int argc, char** argv) {
  hm::cli::exec_with_passive_omp_wait(argv);  // before any OpenMP work; see omp_wait.cpp
  // Trainings flush subnormals (core/denormals.h: a model drifting into them trains at half speed);
  // HARMONIC_FLUSH_DENORMAL=0 keeps IEEE's gradual underflow.
  const char* flush = std::getenv("HARMONIC_FLUSH_DENORMAL");
  if (flush == nullptr || std::string_view(flush) != "0") hm::set_flush_denormal(true);
  CLI::App app{"Harmonic: a deep-learning framework for the Fourier papers"};
  app.set_version_flag("--version", hm::version_string());
  app.require_subcommand(1);
  for (const auto& command : hm::cli::commands()) command.add(app);
  // CLI11 would say only "A subcommand is required" for `harmonic nosuch`.
  std::string names;
  bool known = false;
  for (const auto& command : hm::cli::commands()) {
    names += (names.empty() ? "" : ", ") + command.name;
    known = known || (argc > 1 && command.name == argv[1]);
  }
  if (argc == 1) {  // bare `harmonic`: the commands, as --help lists them (CLI11: "A subcommand is required")
    fmt::print("{}", app.help());
    return 0;
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    fmt::print(stderr, "error: unknown command '{}' (commands: {}; harmonic --help)\n", argv[1], names);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    const std::string unknown = hm::train::unknown_options_message(app);
    if (unknown.empty()) return app.exit(e);
    fmt::print(stderr, "error: {}\n", unknown);  // CLI11 would say only "arguments were not expected"
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const auto& command : hm::cli::commands())
      if (app.got_subcommand(command.name)) return command.run();
  } catch (const std::exception& e) {
    hm::dist::abort_job_on_error(e.what());  // under mpirun: names the rank and stops the others
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
