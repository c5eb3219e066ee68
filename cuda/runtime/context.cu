// Per-device stream and library handles, created lazily on first use, and the byte copies
// between host and device (device_copy_kernel.cuda).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "harmonic/core/storage.h"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/device/context.cuh"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/cuda/runtime/runtime.h"

namespace hm::cuda {
namespace {

constexpr size_t kCublasLtWorkspace = size_t{32} << 20;
// Multiprocessors of the emulated device: launch geometry and the reductions' work split
// see a small GPU.
constexpr int kEmulatedSmCount = 4;

struct DeviceContext {
  std::once_flag stream_once, cublas_once, cublaslt_once, cudnn_once, workspace_once, sm_once;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublaslt = nullptr;
  cudnnHandle_t cudnn = nullptr;
  Workspace workspace;
  int sm_count = 0;
};

// Leaked on purpose: destroying library handles after the driver has begun shutting down
// at exit is a classic crash; the OS reclaims everything anyway.
DeviceContext& context(int device) {
  // The emulated device has no stream and no library handles: its kernels are host twins.
  check(!emulated(), "cuda", "the emulated CUDA device has no stream or library handles (a kernel without a host twin "
                             "reached the CUDA runtime)");
  static std::vector<DeviceContext>* contexts = [] {
    return new std::vector<DeviceContext>(static_cast<size_t>(device_count()));
  }();
  check_device(device, "cuda");
  return (*contexts)[device];
}

constexpr int kMaxCountedDevices = 64;
std::atomic<uint64_t> host_wait_count[kMaxCountedDevices];

}  // namespace

uint64_t host_waits(int device) {
  return device >= 0 && device < kMaxCountedDevices ? host_wait_count[device].load(std::memory_order_relaxed) : 0;
}

void count_host_wait(int device) {
  if (device >= 0 && device < kMaxCountedDevices) host_wait_count[device].fetch_add(1, std::memory_order_relaxed);
}

void check_device(int device, const char* fn) {
  const int n = device_count();
  if (device >= 0 && device < n) return;
  if (n == 0)
    throw_error(fn, fmt::format("cannot use cuda:{}: {} at run time (this build has the CUDA backend; run on a "
                                "machine with a GPU, or use the CPU)",
                                device, describe()));
  throw_error(fn, fmt::format("cannot use cuda:{}: only {} device(s) visible ({})", device, n, describe()));
}

bool sync_after_launch() {
  static const bool on = [] {
    const char* v = std::getenv("HARMONIC_CUDA_SYNC");
    return v && v[0] == '1';
  }();
  return on;
}

int current_device() {
  if (emulated()) return 0;
  int d = 0;
  HM_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

DeviceGuard::DeviceGuard(int device) {
  if (emulated()) return;
  int current = current_device();
  if (current != device) {
    HM_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) HM_CUDA_WARN(cudaSetDevice(previous_));
}

cudaStream_t stream(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.stream_once, [&] {
    DeviceGuard guard(device);
    HM_CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  });
  return c.stream;
}

cublasHandle_t cublas(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.cublas_once, [&] {
    DeviceGuard guard(device);
    HM_CUBLAS_CHECK(cublasCreate(&c.cublas));
    HM_CUBLAS_CHECK(cublasSetStream(c.cublas, stream(device)));
  });
  return c.cublas;
}

cublasLtHandle_t cublaslt(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.cublaslt_once, [&] {
    DeviceGuard guard(device);
    HM_CUBLAS_CHECK(cublasLtCreate(&c.cublaslt));
  });
  return c.cublaslt;
}

cudnnHandle_t cudnn(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.cudnn_once, [&] {
    DeviceGuard guard(device);
    HM_CUDNN_CHECK(cudnnCreate(&c.cudnn));
    HM_CUDNN_CHECK(cudnnSetStream(c.cudnn, stream(device)));
  });
  return c.cudnn;
}

Workspace cublaslt_workspace(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.workspace_once, [&] {
    c.workspace = {device_alloc_kernel(Device::cuda(device), kCublasLtWorkspace, device), kCublasLtWorkspace};
  });
  return c.workspace;
}

int sm_count(int device) {
  if (emulated()) {
    check_device(device, "sm_count");
    return kEmulatedSmCount;
  }
  DeviceContext& c = context(device);
  std::call_once(c.sm_once,
                 [&] { HM_CUDA_CHECK(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, device)); });
  return c.sm_count;
}

void synchronize_device(int device) {
  check_not_capturing(device, "synchronize_device", "waits for the device");
  count_host_wait(device);
  if (emulated()) {
    check_device(device, "synchronize_device");  // host twins finish before they return
  } else {
    DeviceGuard guard(device);
    HM_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
  }
  resolve_deferred_checks(device);
}

void copy_words_from_device(int device, void* host_dst, const void* device_src, size_t nbytes) {
  check_not_capturing(device, "copy_words_from_device", "reads device memory on the host (the deferred checks' verdict)");
  if (emulated()) {
    std::memcpy(host_dst, device_src, nbytes);
    return;
  }
  DeviceGuard guard(device);
  HM_CUDA_CHECK(cudaMemcpyAsync(host_dst, device_src, nbytes, cudaMemcpyDeviceToHost, stream(device)));
  HM_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
}

void copy_words_to_device(int device, void* device_dst, const void* host_src, size_t nbytes) {
  check_not_capturing(device, "copy_words_to_device", "writes host words to the device");
  if (emulated()) {
    std::memcpy(device_dst, host_src, nbytes);
    return;
  }
  DeviceGuard guard(device);
  HM_CUDA_CHECK(cudaMemcpyAsync(device_dst, host_src, nbytes, cudaMemcpyHostToDevice, stream(device)));
  HM_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
}

namespace {

// Bytes between host and device or between devices, ordered on the device streams. A copy
// to the host waits for its data; a copy from pinned host memory waits too, so the caller
// may refill the buffer at once (pageable sources are staged by the driver before return).
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cuda())
    check_not_capturing(src_device.index, "copy_bytes", "copies device memory to the host");
  if (dst_device.is_cuda() && src_device.is_cpu())  // a graph would read the host bytes at each replay
    check_not_capturing(dst_device.index, "copy_bytes", "copies host memory to the device");
  if (dst_device.is_cuda() && src_device.is_cuda() && dst_device != src_device) {
    check_not_capturing(src_device.index, "copy_bytes", "copies between devices");
    check_not_capturing(dst_device.index, "copy_bytes", "copies between devices");
  }
  if (dst_device.is_cpu() && src_device.is_cuda()) count_host_wait(src_device.index);
  if (emulated() && dst_device == src_device && cuda_capture_recording(dst_device.index)) {
    // A device-to-device copy is graph work: recorded (the blocks stay the graph's, graph.h).
    cuda_capture_record("copy_bytes", [dst, src, nbytes] { std::memmove(dst, src, nbytes); });
    return;
  }
  if (emulated()) {  // every byte of the emulated device is host memory
    std::memmove(dst, src, nbytes);
    if (dst_device.is_cpu() && src_device.is_cuda()) resolve_deferred_checks(src_device.index);
    return;
  }
  if (dst_device.is_cuda() && src_device.is_cpu()) {
    DeviceGuard guard(dst_device.index);
    cudaStream_t s = stream(dst_device.index);
    HM_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, s));
    if (is_pinned(src)) HM_CUDA_CHECK(cudaStreamSynchronize(s));
  } else if (dst_device.is_cpu() && src_device.is_cuda()) {
    DeviceGuard guard(src_device.index);
    cudaStream_t s = stream(src_device.index);
    HM_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s));
    HM_CUDA_CHECK(cudaStreamSynchronize(s));
    resolve_deferred_checks(src_device.index);
  } else if (dst_device == src_device) {
    DeviceGuard guard(dst_device.index);
    HM_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, stream(dst_device.index)));
  } else if (dst_device.is_cuda() && src_device.is_cuda()) {
    // The source's pending writes must land first; afterwards the destination stream must
    // finish reading before the source block can be freed and reused on its own stream.
    synchronize_device(src_device.index);
    DeviceGuard guard(dst_device.index);
    cudaStream_t s = stream(dst_device.index);
    HM_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, nbytes, s));
    HM_CUDA_CHECK(cudaStreamSynchronize(s));
  } else {
    throw_error("copy_bytes", fmt::format("CUDA copy asked to move {} -> {}", src_device.str(), dst_device.str()));
  }
}

[[maybe_unused]] const bool bound = (device_copy_kernel.cuda = device_copy_kernel.twin = copy_bytes, true);

}  // namespace
}  // namespace hm::cuda
