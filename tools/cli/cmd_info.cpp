// `harmonic info`: version, commit, build flags, threads, BLAS and CUDA status of this build and
// machine, and every HARMONIC_* environment variable with its current value.
#include <fmt/format.h>

#include "harmonic/core/build_info.h"
#include "harmonic/core/deterministic.h"
#include "harmonic/core/environment.h"
#include "harmonic/core/harmonic.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/tools/cli/commands.h"

namespace hm::cli {

std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {
Registration reg{{"info", [](CLI::App& app) { app.add_subcommand("info", "Show build and device information"); },
                  [] {
                    const BuildInfo& b = build_info();
                    fmt::print("{}\n", version_string());
                    fmt::print("build type: {}\n", b.build_type);
                    fmt::print("compiler: {}\n", b.compiler);
                    fmt::print("cxx flags: {}\n", b.cxx_flags);
                    fmt::print("blas library: {}\n", b.blas_library);
                    fmt::print("blas runtime: {}\n", blas_runtime());
                    fmt::print("openmp threads (cpu ops): {}\n", get_num_threads());
                    fmt::print("subnormal floats (cpu ops): {}\n",
                               flush_denormal() ? "flushed to zero" : "kept (HARMONIC_FLUSH_DENORMAL=0)");
                    fmt::print("cuda backend compiled: {}\n", cuda::compiled() ? "yes" : "no");
                    fmt::print("cuda: {}\n", cuda::describe());
                    // Read from the environment only: `info` never initialises MPI.
                    fmt::print("distributed: mpi {}, nccl {}, launched by mpirun: {}\n",
                               dist::mpi_compiled() ? "compiled" : "not compiled",
                               dist::nccl_compiled() ? "compiled" : "not compiled",
                               dist::launched_by_mpi() ? "yes" : "no");
                    fmt::print("deterministic mode: {}\n", deterministic() ? "on" : "off");
                    fmt::print("environment (tools/README.md#environment):\n");
                    for (const EnvironmentVariable& v : environment_variables())
                      fmt::print("  {:<28} {:<10} (unset: {})\n", v.name, environment_value(v.name), v.default_value);
                    return 0;
                  }}};
}  // namespace
}  // namespace hm::cli
