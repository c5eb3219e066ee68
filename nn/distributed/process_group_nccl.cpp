// The NCCL backend (compiled with HARMONIC_WITH_NCCL: CUDA, NCCL and MPI): collectives on CUDA
// tensors, one GPU per rank, chosen by the rank's index among the ranks of its node. The
// communicator is bootstrapped over MPI: rank 0 makes the ncclUniqueId, MPI broadcasts it.
// Collectives are queued on Harmonic's stream of the device (ordered after the kernels that
// wrote the tensor) and waited for under the watchdog, so a stalled peer aborts the job.
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstring>

#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/nn/distributed/backends.h"
#include "harmonic/nn/distributed/collective_watchdog.h"

namespace hm::cuda {
cudaStream_t stream(int device);  // cuda/device/context.cuh (a device header host code does not include)
}

namespace hm::dist::detail {
namespace {

void check_nccl(ncclResult_t r, const char* call, const char* fn) {
  if (r != ncclSuccess) throw_error(fn, fmt::format("{} failed: {}", call, ncclGetErrorString(r)));
}
void check_cuda(cudaError_t r, const char* call, const char* fn) {
  if (r != cudaSuccess) throw_error(fn, fmt::format("{} failed: {}", call, cudaGetErrorString(r)));
}
#define HM_NCCL(call, fn) check_nccl((call), #call, fn)
#define HM_CUDART(call, fn) check_cuda((call), #call, fn)

ncclDataType_t nccl_type(DType d, const char* fn) {
  switch (d) {
    case DType::Float32:
      return ncclFloat32;
    case DType::Float64:
      return ncclFloat64;
    case DType::Int64:
      return ncclInt64;
    case DType::BFloat16:
      return ncclBfloat16;
    default:
      throw_error(fn, fmt::format("dtype {} has no NCCL reduction", dtype_name(d)));
  }
}

// The rank's index among the ranks on its node (MPI_COMM_TYPE_SHARED).
int local_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

class NcclProcessGroup final : public ProcessGroup {
 public:
  explicit NcclProcessGroup(ProcessGroup& bootstrap) : rank_(bootstrap.rank()), world_(bootstrap.world_size()) {
    device_ = local_rank();
    const int devices = cuda::device_count();
    check(device_ < devices, "distributed",
          "rank {}: NCCL needs one GPU per rank; this rank is number {} on its node, which has {} GPU(s)", rank_,
          device_, devices);
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (rank_ == 0) HM_NCCL(ncclGetUniqueId(&id), "distributed");
    static_assert(sizeof(ncclUniqueId) % sizeof(int64_t) == 0);
    Tensor id_bytes = Tensor::empty({static_cast<int64_t>(sizeof id / sizeof(int64_t))}, DType::Int64);
    std::memcpy(id_bytes.raw_data(), &id, sizeof id);
    bootstrap.broadcast(id_bytes, 0);
    std::memcpy(&id, id_bytes.raw_data(), sizeof id);
    cuda::DeviceGuard guard(device_);
    HM_NCCL(ncclCommInitRank(&comm_, world_, id, rank_), "distributed");
    timeout_ = default_timeout();
    watchdog_ = std::make_unique<CollectiveWatchdog>(rank_, timeout_, [this](const std::string& message) {
      std::fprintf(stderr, "%s\n", message.c_str());
      std::fflush(stderr);
      ncclCommAbort(comm_);
      MPI_Abort(MPI_COMM_WORLD, 1);
    });
  }
  ~NcclProcessGroup() override {
    watchdog_.reset();
    if (comm_) ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string backend() const override { return "nccl"; }
  void set_timeout(double seconds) override {
    timeout_ = seconds;
    watchdog_->set_timeout(seconds);
  }

  void all_reduce(const Tensor& t, ReduceOp op) override {
    check_on_device(t, "all_reduce");
    const ncclRedOp_t red = op == ReduceOp::Avg ? ncclAvg : ncclSum;
    run("all_reduce", t, [&](cudaStream_t s) {
      return ncclAllReduce(t.raw_data(), t.raw_data(), t.numel(), nccl_type(t.dtype(), "all_reduce"), red, comm_, s);
    });
    t.bump_version();
  }

  void broadcast(const Tensor& t, int root) override {
    check_on_device(t, "broadcast");
    check(root >= 0 && root < world_, "broadcast", "root {} is not a rank of a group of {}", root, world_);
    const size_t bytes = t.numel() * dtype_size(t.dtype());
    run("broadcast", t,
        [&](cudaStream_t s) { return ncclBroadcast(t.raw_data(), t.raw_data(), bytes, ncclUint8, root, comm_, s); });
    t.bump_version();
  }

  Tensor all_gather(const Tensor& t) override {
    check_on_device(t, "all_gather");
    Shape shape = t.shape();
    shape.insert(shape.begin(), world_);
    Tensor out = Tensor::empty(shape, t.dtype(), t.device());
    const size_t bytes = t.numel() * dtype_size(t.dtype());
    run("all_gather", t,
        [&](cudaStream_t s) { return ncclAllGather(t.raw_data(), out.raw_data(), bytes, ncclUint8, comm_, s); });
    return out;
  }

  void barrier() override {
    Tensor one = Tensor::empty({1}, DType::Float32, Device::cuda(device_));
    one.fill_(1.0);
    all_reduce(one, ReduceOp::Sum);
  }

 private:
  void check_on_device(const Tensor& t, const char* fn) const {
    HM_CHECK(t.defined() && t.device() == Device::cuda(device_) && t.is_contiguous(), fn,
             "the NCCL backend of rank {} takes contiguous tensors on cuda:{}, got {}", rank_, device_,
             t.defined() ? t.desc() : std::string("an undefined tensor"));
  }
  // Queues the collective on the device's stream and waits for it under the watchdog.
  template <class Call>
  void run(const char* what, const Tensor& t, Call call) {
    cuda::DeviceGuard guard(device_);
    cudaStream_t s = cuda::stream(device_);
    CollectiveWatchdog::Scope watch(*watchdog_, fmt::format("{} of {} (nccl of {} ranks)", what, t.desc(), world_));
    HM_NCCL(call(s), what);
    HM_CUDART(cudaStreamSynchronize(s), what);
  }

  int rank_ = 0, world_ = 1, device_ = 0;
  ncclComm_t comm_ = nullptr;
  std::unique_ptr<CollectiveWatchdog> watchdog_;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_nccl_group(ProcessGroup& bootstrap) {
  check(bootstrap.backend() == "mpi", "distributed", "the NCCL communicator is bootstrapped over MPI, got '{}'",
        bootstrap.backend());
  return std::make_shared<NcclProcessGroup>(bootstrap);
}

}  // namespace hm::dist::detail
