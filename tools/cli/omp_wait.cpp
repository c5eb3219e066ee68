// With the default OMP_WAIT_POLICY a thread waiting at a barrier spins a while before it
// sleeps; when another process keeps the cores busy, the spinning threads take the time
// slices the working ones need (`harmonic demo`: seconds instead of a fraction of one on two
// busy cores). Passive threads sleep at once. The runtime reads the variable while the
// libraries load, before main: setting it from a .preinit_array function made libgomp report
// PASSIVE but did not remove the slowdown, so the process is started again with it set.
// Measurements: README, "Threads on a busy machine".
#include "harmonic/tools/cli/omp_wait.h"

#include <unistd.h>

#include <cstdlib>

namespace hm::cli {

void exec_with_passive_omp_wait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;  // chosen
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // no /proc: run on with the default policy rather than fail
}

}  // namespace hm::cli
