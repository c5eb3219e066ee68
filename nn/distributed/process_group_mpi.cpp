// The MPI backend (compiled with HARMONIC_WITH_MPI): collectives on host memory over
// MPI_COMM_WORLD, each watched by a CollectiveWatchdog that aborts the job when one stalls.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/nn/distributed/backends.h"
#include "harmonic/nn/distributed/collective_watchdog.h"
#include "harmonic/ops/ops.h"

namespace hm::dist::detail {
namespace {

void check_mpi(int code, const char* call, const char* fn) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw_error(fn, fmt::format("{} failed: {}", call, std::string(text, static_cast<size_t>(length))));
}
#define HM_MPI(call, fn) check_mpi((call), #call, fn)

MPI_Datatype reduce_type(DType d, const char* fn) {
  switch (d) {
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Int64:
      return MPI_INT64_T;
    default:
      throw_error(fn, fmt::format("dtype {} cannot be reduced (float32, float64 or int64)", dtype_name(d)));
  }
}

// MPI_Finalize at exit, after everything else that might still run a collective.
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

class MpiProcessGroup final : public ProcessGroup {
 public:
  MpiProcessGroup() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      // The data-parallel trainer runs collectives on a communication thread while the main
      // thread computes; the calls never overlap, so SERIALIZED is enough (MULTIPLE is asked for).
      int provided = 0;
      HM_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "distributed");
      check(provided >= MPI_THREAD_SERIALIZED, "distributed",
            "the MPI library offers thread level {}, the trainer's communication thread needs MPI_THREAD_SERIALIZED",
            provided);
      std::atexit(finalize_at_exit);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors become hm::Error, not exit()
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &world_);
    timeout_ = default_timeout();
    watchdog_ = std::make_unique<CollectiveWatchdog>(rank_, timeout_, [](const std::string& message) {
      std::fprintf(stderr, "%s\n", message.c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    });
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string backend() const override { return "mpi"; }
  void set_timeout(double seconds) override {
    timeout_ = seconds;
    watchdog_->set_timeout(seconds);
  }

  void all_reduce(const Tensor& t, ReduceOp op) override {
    check(t.defined(), "all_reduce", "undefined tensor");
    const MPI_Datatype type = reduce_type(t.dtype(), "all_reduce");
    Tensor host = staged(t);
    {
      CollectiveWatchdog::Scope watch(*watchdog_, describe("all_reduce", host));
      HM_MPI(MPI_Allreduce(MPI_IN_PLACE, host.raw_data(), count(host), type, MPI_SUM, MPI_COMM_WORLD), "all_reduce");
    }
    if (op == ReduceOp::Avg) {
      check(t.dtype() != DType::Int64, "all_reduce", "ReduceOp::Avg of an int64 tensor");
      mul_(host, 1.0 / world_);
    }
    unstage(t, host);
  }

  void broadcast(const Tensor& t, int root) override {
    check(t.defined(), "broadcast", "undefined tensor");
    check(root >= 0 && root < world_, "broadcast", "root {} is not a rank of a group of {}", root, world_);
    Tensor host = staged(t);
    {
      CollectiveWatchdog::Scope watch(*watchdog_, describe("broadcast", host));
      HM_MPI(MPI_Bcast(host.raw_data(), bytes(host), MPI_BYTE, root, MPI_COMM_WORLD), "broadcast");
    }
    unstage(t, host);
  }

  Tensor all_gather(const Tensor& t) override {
    check(t.defined(), "all_gather", "undefined tensor");
    Tensor host = t.to(Device::cpu()).contiguous();
    Shape shape = host.shape();
    shape.insert(shape.begin(), world_);
    Tensor out = Tensor::empty(shape, t.dtype());
    {
      CollectiveWatchdog::Scope watch(*watchdog_, describe("all_gather", host));
      HM_MPI(
          MPI_Allgather(host.raw_data(), bytes(host), MPI_BYTE, out.raw_data(), bytes(host), MPI_BYTE, MPI_COMM_WORLD),
          "all_gather");
    }
    return out.to(t.device());
  }

  void barrier() override {
    CollectiveWatchdog::Scope watch(*watchdog_, "barrier");
    HM_MPI(MPI_Barrier(MPI_COMM_WORLD), "barrier");
  }

 private:
  // A contiguous host tensor holding t's values: t itself when it already is one.
  static Tensor staged(const Tensor& t) {
    return t.device().is_cpu() && t.is_contiguous() ? t : t.to(Device::cpu()).contiguous();
  }
  static void unstage(const Tensor& t, const Tensor& host) {
    if (host.same(t)) {
      t.bump_version();
    } else {
      NoGradGuard no_grad;  // a collective writes t whether or not it requires grad, as MPI does in host memory
      Tensor target = t;
      target.copy_(host);
    }
  }
  static int count(const Tensor& t) {
    check(t.numel() <= INT32_MAX, "distributed", "tensor {} has more than 2^31 elements", t.desc());
    return static_cast<int>(t.numel());
  }
  static int bytes(const Tensor& t) {
    const int64_t n = t.numel() * static_cast<int64_t>(dtype_size(t.dtype()));
    check(n <= INT32_MAX, "distributed", "tensor {} has more than 2^31 bytes", t.desc());
    return static_cast<int>(n);
  }
  std::string describe(const char* what, const Tensor& t) const {
    return fmt::format("{} of {} ({} of {} ranks)", what, t.desc(), backend(), world_);
  }

  int rank_ = 0, world_ = 1;
  std::unique_ptr<CollectiveWatchdog> watchdog_;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_mpi_world() { return std::make_shared<MpiProcessGroup>(); }

void mpi_abort_on_error(const std::string& message) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (world <= 1) return;
  std::fprintf(stderr, "error on rank %d of %d: %s\n", rank, world, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace hm::dist::detail
