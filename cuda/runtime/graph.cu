// CUDA graph capture and replay (see cuda/runtime/graph.h): cudaStreamBeginCapture on a GPU,
// recorded host-twin calls on the emulated device.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/core/philox_draw.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/device/context.cuh"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/cuda/runtime/runtime.h"

namespace hm::cuda {

struct Graph::Impl {
  int device = -1;
  bool capturing = false, ready = false;
  uint64_t pool = 0;                         // the allocator's private pool (0: none yet)
  std::vector<std::function<void()>> calls;  // emulated device: the recorded kernel calls
  cudaGraph_t graph = nullptr;               // GPU: the captured graph and its executable
  cudaGraphExec_t exec = nullptr;
  std::shared_ptr<CapturedChecks> checks;  // GPU: deferred checks registered during capture
  // Philox draws (core/philox_draw.h): per generator drawn from, its offset at the first
  // draw, the counters the captured work reserves and the device copy of the offset.
  struct Draws {
    Generator* gen;
    uint64_t seed, start, total = 0;
    Tensor base;
  };
  std::vector<Draws> draws;

  void stop_capture();  // ends recording on the device (the pool stays the graph's)
  void drop();          // frees what was recorded (the pool too)
};

namespace {
thread_local Graph::Impl* g_capture = nullptr;  // the graph this thread captures
std::atomic<int> g_active_captures{0};          // on any thread
}  // namespace

void Graph::Impl::stop_capture() {
  g_capture = nullptr;
  --g_active_captures;
  capturing = false;
  set_capture_pool(device, 0);
  if (!emulated()) record_checks(device, nullptr);
  for (Draws& d : draws) {  // the capture ran nothing: the generators are left where they were
    d.total = d.gen->offset() - d.start;
    d.gen->set_state(d.seed, d.start);
  }
}

void Graph::Impl::drop() {
  calls.clear();  // the records' tensors go back to the pool first
  if (exec) HM_CUDA_WARN(cudaGraphExecDestroy(exec));
  if (graph) HM_CUDA_WARN(cudaGraphDestroy(graph));
  exec = nullptr, graph = nullptr;
  checks.reset();
  draws.clear();
  if (pool) release_capture_pool(device, pool);
  pool = 0;
  ready = false;
}

Graph::Graph() : impl_(std::make_unique<Impl>()) {}

Graph::~Graph() {
  abort_capture();
  impl_->drop();
}

void Graph::begin_capture(int device) {
  check_device(device, "Graph::begin_capture");
  check(!g_capture, "Graph::begin_capture", "a CUDA graph is already being captured on cuda:{} by this thread",
        g_capture ? g_capture->device : -1);
  check(impl_->device < 0, "Graph::begin_capture", "this graph was captured already (on cuda:{}); make a new one",
        impl_->device);
  Impl& g = *impl_;
  g.device = device;
  g.pool = create_capture_pool(device);
  if (!emulated()) {
    DeviceGuard guard(device);
    g.checks = new_captured_checks();
    record_checks(device, g.checks);
    // Thread-local mode: another thread's unsafe calls (a cudaMalloc) are not this capture's error.
    const cudaError_t status = cudaStreamBeginCapture(stream(device), cudaStreamCaptureModeThreadLocal);
    if (status != cudaSuccess) {
      record_checks(device, nullptr);
      release_capture_pool(device, g.pool);
      g.pool = 0, g.device = -1;
      HM_CUDA_CHECK(status);
    }
  }
  set_capture_pool(device, g.pool);
  g.capturing = true;
  g_capture = &g;
  ++g_active_captures;
}

void Graph::end_capture() {
  Impl& g = *impl_;
  check(g.capturing, "Graph::end_capture", "no capture in progress (call begin_capture first)");
  g.stop_capture();
  if (!emulated()) {
    DeviceGuard guard(g.device);
    const cudaError_t status = cudaStreamEndCapture(stream(g.device), &g.graph);
    if (status != cudaSuccess) {
      cudaGetLastError();
      g.drop();
      throw_error("Graph::end_capture", fmt::format("the capture on cuda:{} failed: {} (an operation in the captured "
                                                    "work is not allowed in a CUDA graph)",
                                                    g.device, cudaGetErrorString(status)));
    }
    HM_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
  }
  g.ready = true;
}

void Graph::abort_capture() {
  Impl& g = *impl_;
  if (!g.capturing) return;
  g.stop_capture();
  if (!emulated()) {
    DeviceGuard guard(g.device);
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream(g.device), &partial) == cudaSuccess && partial) cudaGraphDestroy(partial);
    cudaGetLastError();  // an invalidated capture's error is what aborted it
  }
  g.drop();
}

void Graph::replay() {
  Impl& g = *impl_;
  check(g.ready, "Graph::replay", "{}", g.capturing ? "the capture has not ended (call end_capture first)"
                                                    : "nothing captured (call begin_capture and end_capture first)");
  check(!g_capture, "Graph::replay", "cannot replay a graph while capturing one (on cuda:{})", g_capture ? g_capture->device : -1);
  for (Impl::Draws& d : g.draws) {  // the step's Philox offsets: the generators' now (a fill kernel)
    check(d.gen->seed() == d.seed, "Graph::replay",
          "a generator the graph draws from was reseeded ({} at the capture, {} now): capture the work again", d.seed,
          d.gen->seed());
    const uint64_t offset = d.gen->offset();
    check(offset < (uint64_t(1) << 53), "Graph::replay", "Philox offset {} is past 2^53", offset);
    d.base.fill_(static_cast<double>(offset));
    d.gen->set_state(d.seed, offset + d.total);
  }
  if (emulated()) {
    for (const std::function<void()>& call : g.calls) call();
    return;
  }
  DeviceGuard guard(g.device);
  HM_CUDA_CHECK(cudaGraphLaunch(g.exec, stream(g.device)));
  if (g.checks) rearm_checks(g.device, *g.checks);
}

bool Graph::ready() const { return impl_->ready; }
int Graph::device() const { return impl_->device; }

size_t Graph::node_count() const {
  if (emulated() || !impl_->graph) return impl_->calls.size();
  size_t n = 0;
  HM_CUDA_CHECK(cudaGraphGetNodes(impl_->graph, nullptr, &n));
  return n;
}

bool capturing(int device) {
  if (g_capture && g_capture->device == device) return true;
  if (emulated() || g_active_captures.load(std::memory_order_relaxed) == 0) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HM_CUDA_CHECK(cudaStreamIsCapturing(stream(device), &status));
  return status != cudaStreamCaptureStatusNone;
}

void check_not_capturing(int device, std::string_view fn, std::string_view what) {
  if (g_active_captures.load(std::memory_order_relaxed) == 0 || !capturing(device)) [[likely]]
    return;
  throw_error(fn, fmt::format("{} while a CUDA graph is being captured on cuda:{}: a graph holds device work only "
                              "(kernels and device copies); do this before or after the captured region",
                              what, device));
}

}  // namespace hm::cuda

namespace hm {

bool cuda_capture_recording(int device) {
  return cuda::g_capture && cuda::g_capture->device == device && cuda::emulated();
}

void cuda_capture_record(std::string_view name, std::function<void()> call) {
  check(cuda::g_capture != nullptr, name, "recorded outside a CUDA graph capture");
  cuda::g_capture->calls.push_back(std::move(call));
}

void cuda_check_not_capturing(int device, std::string_view fn, std::string_view what) {
  cuda::check_not_capturing(device, fn, what);
}

PhiloxDraw reserve_philox(Generator& g, uint64_t n, Device device) {
  if (!device.is_cuda() || !cuda::capturing(device.index)) return {g.seed(), g.reserve(n), Tensor()};
  cuda::Graph::Impl* graph = cuda::g_capture;
  check(graph && graph->device == device.index, "reserve_philox",
        "a random draw on cuda:{} while another thread captures a CUDA graph there", device.index);
  auto it = std::find_if(graph->draws.begin(), graph->draws.end(), [&](const auto& d) { return d.gen == &g; });
  if (it == graph->draws.end())
    it = graph->draws.insert(graph->draws.end(), {&g, g.seed(), g.offset(), 0, Tensor::empty({1}, DType::Int64, device)});
  const uint64_t offset = g.reserve(n);
  return {g.seed(), offset - it->start, it->base};
}

}  // namespace hm
