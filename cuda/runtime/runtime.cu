// Device discovery. Nothing here runs at static-initialisation time: the driver is touched
// only when a function is called, so a CUDA-enabled build works on a machine without a GPU.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/runtime.h"

namespace hm::cuda {

bool compiled() { return true; }

namespace {
int real_device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no driver"/"no device" error
      return 0;
    }
    return n;
  }();
  return count;
}
}  // namespace

bool emulated() {
  static const bool on = [] {
    const char* v = std::getenv("HARMONIC_EMULATE_CUDA");
    return v && std::string_view(v) == "1" && real_device_count() == 0;
  }();
  return on;
}

int device_count() { return emulated() ? 1 : real_device_count(); }

bool available() { return device_count() > 0; }

std::string describe() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  auto version = [](int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); };
  const std::string versions =
      fmt::format("runtime {}, driver {}", version(runtime), driver == 0 ? std::string("none") : version(driver));
  if (emulated())
    return fmt::format("1 x emulated CUDA device (HARMONIC_EMULATE_CUDA=1, no GPU: host memory, the kernels' host "
                       "twins); {}",
                       versions);
  int n = device_count();
  if (n == 0) return fmt::format("{} ({})", driver == 0 ? "no CUDA driver" : "no CUDA device", versions);
  cudaDeviceProp prop{};
  HM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return fmt::format("{} x {} (sm_{}{}); {}", n, prop.name, prop.major, prop.minor, versions);
}

size_t memory_available(int device) {
  if (device < 0 || device >= device_count()) return 0;
  if (emulated()) return size_t{16} << 30;  // host memory: a GPU-sized budget, so the same paths are taken
  DeviceGuard guard(device);
  size_t free_bytes = 0, total_bytes = 0;
  HM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes + allocator_stats(device).cached;
}

void synchronize() {
  check_device(0, "cuda::synchronize");
  synchronize_device(current_device());
}

}  // namespace hm::cuda

namespace hm {
bool cuda_emulated() { return cuda::emulated(); }
}  // namespace hm
