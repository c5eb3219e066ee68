// Process groups: the ranks of a data-parallel job and the collectives they run on tensors.
//
//   std::shared_ptr<dist::ProcessGroup> group = dist::process_group_for(device);
//   group->broadcast(weights, 0);             // every rank now holds rank 0's weights
//   group->all_reduce(grad, dist::ReduceOp::Avg);
//
// Backends, chosen at run time:
//   single  world size 1, every collective a no-op: a process not started by mpirun (or a
//           build without MPI). A single-process run never needs mpirun.
//   mpi     OpenMPI (or any MPI) on host memory; CUDA tensors are staged through the host.
//   nccl    CUDA tensors on one GPU per rank (the rank's index among the ranks of its node),
//           its communicator bootstrapped over MPI (ncclGetUniqueId on rank 0, MPI_Bcast).
//
// Every rank must call the same collectives in the same order with tensors of the same shape
// and dtype. A collective that has not finished after timeout() seconds (a peer died, hangs
// or raised) makes this rank print which collective stalled and abort the whole job.
#pragma once
#include <memory>
#include <string>

#include "harmonic/core/device.h"
#include "harmonic/core/tensor.h"

namespace hm::dist {

enum class ReduceOp { Sum, Avg };

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string backend() const = 0;  // "single", "mpi" or "nccl"

  // In place on every rank: t = sum (or mean) over ranks of t. float32, float64 or int64.
  virtual void all_reduce(const Tensor& t, ReduceOp op) = 0;
  // In place: every rank's t becomes root's t.
  virtual void broadcast(const Tensor& t, int root) = 0;
  // (world_size, *t.shape): row r is rank r's t.
  virtual Tensor all_gather(const Tensor& t) = 0;
  virtual void barrier() = 0;

  // Seconds a collective may take before the job is aborted (default 300, or the
  // HARMONIC_DIST_TIMEOUT environment variable); <= 0 waits forever.
  virtual void set_timeout(double seconds) { timeout_ = seconds; }
  double timeout() const { return timeout_; }

 protected:
  double timeout_ = 300;
};

// True when a launcher (mpirun/mpiexec, srun with PMI) started this process as one rank of a
// job, read from its environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK) without
// initialising MPI.
bool launched_by_mpi();
bool mpi_compiled();   // built with HARMONIC_MPI
bool nccl_compiled();  // built with CUDA and NCCL

// The job's group over host memory: MPI when launched_by_mpi() and MPI is compiled in (MPI is
// initialised on the first call and finalised at exit), else the single-process group.
std::shared_ptr<ProcessGroup> world();
// The group for tensors on `device`: NCCL for a CUDA device when compiled and the job has more
// than one rank, else world().
std::shared_ptr<ProcessGroup> process_group_for(Device device);
// A group of one process, for tests and single-process runs.
std::shared_ptr<ProcessGroup> single_process_group();

// Throws on every rank, naming the ranks that differ from rank 0, unless every rank passes
// the same `text` (compared by a 64-bit hash). `what` names the text in the message.
void check_same_on_all_ranks(ProcessGroup& group, const std::string& text, const std::string& what);

// Called by the command line's error handler: in a job of several ranks, prints
// "error on rank R of N: message" to stderr and aborts the job (MPI_Abort), so the other ranks
// stop instead of waiting in a collective. Returns (doing nothing) in a single-process run.
void abort_job_on_error(const std::string& message);

}  // namespace hm::dist
