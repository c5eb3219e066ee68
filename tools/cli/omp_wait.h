// Passive OpenMP waiting for the `harmonic` executable.
#pragma once

namespace hm::cli {

// When neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set, sets OMP_WAIT_POLICY=passive and
// starts this executable again with the same arguments; returns only if that is not possible.
void exec_with_passive_omp_wait(char** argv);

}  // namespace hm::cli
