// Built when Harmonic is compiled without CUDA: there is no device, and the kernel slots'
// `cuda` pointers stay empty, so any CUDA tensor op throws "built without CUDA". The host
// APIs of cuda/*.h exist so tools link the same way in both builds.
#include <algorithm>
#include <cstdlib>

#include "harmonic/core/error.h"
#include "harmonic/core/philox_draw.h"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/cuda/runtime/timing.h"

namespace hm::cuda {
namespace {
[[noreturn]] void no_cuda(const char* fn) { throw_error(fn, "Harmonic was built without CUDA"); }
}  // namespace

bool compiled() { return false; }
int device_count() { return 0; }
bool available() { return false; }
bool emulated() { return false; }
std::string describe() { return "built without CUDA"; }
void synchronize() { no_cuda("cuda::synchronize"); }
size_t memory_available(int) { return 0; }

int current_device() { no_cuda("cuda::current_device"); }
DeviceGuard::DeviceGuard(int) { no_cuda("cuda::DeviceGuard"); }
DeviceGuard::~DeviceGuard() = default;
void synchronize_device(int) { no_cuda("cuda::synchronize_device"); }
uint64_t host_waits(int) { return 0; }
void count_host_wait(int) {}
int sm_count(int) { no_cuda("cuda::sm_count"); }
void copy_words_from_device(int, void*, const void*, size_t) { no_cuda("cuda::copy_words_from_device"); }
void copy_words_to_device(int, void*, const void*, size_t) { no_cuda("cuda::copy_words_to_device"); }
void check_device(int device, const char* fn) {
  throw_error(fn, fmt::format("cannot use cuda:{}: Harmonic was built without CUDA", device));
}

AllocatorStats allocator_stats(int) { return {}; }
void reset_peak_stats(int) {}
void empty_cache() {}
size_t allocation_size_class(size_t nbytes) { return nbytes; }

// Pinned memory falls back to ordinary aligned host memory.
void* pinned_alloc(size_t nbytes) {
  void* p = std::aligned_alloc(64, std::max<size_t>(64, (nbytes + 63) / 64 * 64));
  if (!p) throw_error("pinned_alloc", fmt::format("out of host memory allocating {} bytes", nbytes));
  return p;
}
void pinned_free(void* p) { std::free(p); }
bool is_pinned(const void*) { return false; }

uint64_t create_capture_pool(int) { no_cuda("cuda::create_capture_pool"); }
void set_capture_pool(int, uint64_t) {}
void release_capture_pool(int, uint64_t) {}
size_t capture_pool_bytes(int, uint64_t) { return 0; }

struct Graph::Impl {};
Graph::Graph() = default;
Graph::~Graph() = default;
void Graph::begin_capture(int) { no_cuda("Graph::begin_capture"); }
void Graph::end_capture() { no_cuda("Graph::end_capture"); }
void Graph::abort_capture() {}
void Graph::replay() { no_cuda("Graph::replay"); }
bool Graph::ready() const { return false; }
int Graph::device() const { return -1; }
size_t Graph::node_count() const { return 0; }
bool capturing(int) { return false; }
void check_not_capturing(int, std::string_view, std::string_view) {}

Timing time_on_device(const std::function<void()>&, int, int, int) { no_cuda("time_on_device"); }

}  // namespace hm::cuda

namespace hm {
bool cuda_emulated() { return false; }  // the emulated device runs the CUDA kernels' host twins: CUDA builds only
bool cuda_capture_recording(int) { return false; }
void cuda_capture_record(std::string_view name, std::function<void()>) { throw_error(name, "Harmonic was built without CUDA"); }
void cuda_check_not_capturing(int, std::string_view, std::string_view) {}
PhiloxDraw reserve_philox(Generator& g, uint64_t n, Device) { return {g.seed(), g.reserve(n), Tensor()}; }
}  // namespace hm
