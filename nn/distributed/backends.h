// The backends' factories, defined in the files compiled for them (process_group_mpi.cpp with
// HARMONIC_WITH_MPI, process_group_nccl.cpp with HARMONIC_WITH_NCCL). Not installed API.
#pragma once
#include <memory>
#include <string>

#include "harmonic/nn/distributed/process_group.h"

namespace hm::dist::detail {

// The world communicator (MPI initialised on the first call, finalised at exit).
std::shared_ptr<ProcessGroup> make_mpi_world();
// Prints "error on rank R of N: message" and calls MPI_Abort when MPI runs with N > 1 ranks.
void mpi_abort_on_error(const std::string& message);
// A NCCL communicator over the ranks of `bootstrap` (an MPI group), one GPU per rank.
std::shared_ptr<ProcessGroup> make_nccl_group(ProcessGroup& bootstrap);

// Default collective timeout: HARMONIC_DIST_TIMEOUT seconds, else 300.
double default_timeout();

}  // namespace hm::dist::detail
