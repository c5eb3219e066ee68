// `harmonic info`: version, threads, BLAS and CUDA status of this build and machine.
#include <fmt/format.h>

#include "core/harmonic.h"
#include "tools/cli/commands.h"

namespace hm::cli {

std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {
Registration reg{{"info",
                  [](CLI::App& app) { app.add_subcommand("info", "Show build and device information"); },
                  [] {
                    fmt::print("harmonic 0.1.0\n");
                    fmt::print("cpu threads: {}\n", get_num_threads());
                    fmt::print("cuda backend compiled: {}\n", cuda::compiled() ? "yes" : "no");
                    fmt::print("cuda devices: {}\n", cuda::describe());
                    return 0;
                  }}};
}  // namespace
}  // namespace hm::cli
