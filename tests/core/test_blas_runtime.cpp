// Harmonic's choice of OpenBLAS kernels (core/blas_runtime.h): never OpenBLAS's generic
// fallback on a CPU whose instruction set runs better ones.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "harmonic/core/blas_runtime.h"
#include "harmonic/core/build_info.h"

TEST_CASE("blas: the OpenBLAS core for an instruction set") {
  CHECK(hm::blas_core_for(true, true, true) == "SkylakeX");
  CHECK(hm::blas_core_for(false, true, true) == "Haswell");
  CHECK(hm::blas_core_for(false, false, true) == "SandyBridge");
  CHECK(hm::blas_core_for(false, false, false) == "");
}

TEST_CASE("blas: OpenBLAS runs this CPU's kernels, not its generic Prescott fallback") {
  const std::string core = hm::blas_core_in_use(), want = hm::blas_core_for_this_cpu();
  if (core.empty()) {
    MESSAGE("the linked BLAS is not OpenBLAS: nothing to check");
    return;
  }
  const std::string runtime = hm::blas_runtime();
  INFO("OpenBLAS core: ", core, "; this CPU's: ", want, "; runtime: ", runtime);
  CHECK(runtime.find(core) != std::string::npos);
  if (std::getenv("OPENBLAS_CORETYPE")) {
    MESSAGE("OPENBLAS_CORETYPE is set: the user's choice stands");
    CHECK(hm::blas_kernel_choice().empty());
    return;
  }
  if (!want.empty()) CHECK(core != "Prescott");
  if (!hm::blas_kernel_choice().empty()) {  // Harmonic replaced the fallback: by the CPU's own core
    CHECK(core == want);
    CHECK(runtime.find("chosen by Harmonic") != std::string::npos);
  }
}
