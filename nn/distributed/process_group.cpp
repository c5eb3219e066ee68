// The single-process group, the choice of backend, and the checks every backend shares.
#include "harmonic/nn/distributed/process_group.h"

#include <cstdlib>
#include <mutex>

#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/nn/distributed/backends.h"
#include "harmonic/ops/ops.h"

namespace hm::dist {
namespace {

// World size 1: a reduction, broadcast or gather over one rank leaves the data as it is.
class SingleProcessGroup final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string backend() const override { return "single"; }
  void all_reduce(const Tensor& t, ReduceOp) override {
    check(t.defined(), "all_reduce", "undefined tensor");
    check(t.dtype() == DType::Float32 || t.dtype() == DType::Float64 || t.dtype() == DType::Int64, "all_reduce",
          "dtype {} cannot be reduced (float32, float64 or int64)", dtype_name(t.dtype()));
  }
  void broadcast(const Tensor& t, int root) override {
    check(t.defined(), "broadcast", "undefined tensor");
    check(root == 0, "broadcast", "root {} is not a rank of a group of 1", root);
  }
  Tensor all_gather(const Tensor& t) override {
    check(t.defined(), "all_gather", "undefined tensor");
    return unsqueeze(t, 0).clone();
  }
  void barrier() override {}
};

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

bool mpi_compiled() {
#ifdef HARMONIC_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool nccl_compiled() {
#ifdef HARMONIC_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::shared_ptr<ProcessGroup> single_process_group() { return std::make_shared<SingleProcessGroup>(); }

std::shared_ptr<ProcessGroup> world() {
  static std::once_flag once;
  static std::shared_ptr<ProcessGroup> group;
  std::call_once(once, [] {
#ifdef HARMONIC_WITH_MPI
    if (launched_by_mpi()) {
      group = detail::make_mpi_world();
      return;
    }
#endif
    group = single_process_group();
  });
  return group;
}

std::shared_ptr<ProcessGroup> process_group_for(Device device) {
  std::shared_ptr<ProcessGroup> host = world();
#ifdef HARMONIC_WITH_NCCL
  if (device.is_cuda() && !cuda::emulated() && host->world_size() > 1) {  // the emulated device: host collectives
    static std::once_flag once;
    static std::shared_ptr<ProcessGroup> nccl;
    std::call_once(once, [&] { nccl = detail::make_nccl_group(*host); });
    return nccl;
  }
#endif
  return host;
}

void check_same_on_all_ranks(ProcessGroup& group, const std::string& text, const std::string& what) {
  if (group.world_size() == 1) return;
  Tensor mine = full({1}, static_cast<double>(0), {.dtype = DType::Int64});
  mine.data<int64_t>()[0] = static_cast<int64_t>(fnv1a(text));
  Tensor all = group.all_gather(mine).to(Device::cpu()).contiguous();  // (world, 1)
  const int64_t* h = all.data<int64_t>();
  std::string differing;
  for (int r = 1; r < group.world_size(); ++r)
    if (h[r] != h[0]) differing += fmt::format("{}{}", differing.empty() ? "" : ", ", r);
  check(differing.empty(), "distributed",
        "the {} differs across ranks: rank(s) {} differ from rank 0 (hashes {:016x} vs {:016x}); every rank must be "
        "started with the same command, options and files",
        what, differing, static_cast<uint64_t>(h[differing.empty() ? 0 : std::stoi(differing)]),
        static_cast<uint64_t>(h[0]));
}

void abort_job_on_error(const std::string& message) {
#ifdef HARMONIC_WITH_MPI
  if (launched_by_mpi()) detail::mpi_abort_on_error(message);
#endif
}

namespace detail {
double default_timeout() {
  if (const char* s = std::getenv("HARMONIC_DIST_TIMEOUT")) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    check(end != s && *end == '\0', "distributed", "HARMONIC_DIST_TIMEOUT='{}' is not a number of seconds", s);
    return v;
  }
  return 300;
}
}  // namespace detail

}  // namespace hm::dist
