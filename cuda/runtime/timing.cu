// CUDA-event timing of a callable (see cuda/runtime/timing.h).
#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "harmonic/core/profiler.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/device/context.cuh"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/cuda/runtime/timing.h"

namespace hm::cuda {
namespace {

Timing summarise(std::vector<double> ms) {
  const int iters = static_cast<int>(ms.size());
  Timing t;
  t.iters = iters;
  for (double v : ms) t.mean_ms += v / iters;
  std::sort(ms.begin(), ms.end());
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.median_ms = iters % 2 ? ms[iters / 2] : 0.5 * (ms[iters / 2 - 1] + ms[iters / 2]);
  return t;
}

// The emulated device runs its kernels on the host before they return: wall time.
Timing time_on_host(const std::function<void()>& fn, int iters, int warmup) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms(iters);
  for (double& m : ms) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return summarise(std::move(ms));
}

// The profiler's device clock (core/profiler.h): events from a pool, recorded on the stream.
std::mutex event_mutex;
std::vector<cudaEvent_t> event_pool;

void* record_event(int device) {
  if (emulated()) return nullptr;  // its kernels run on the host before they return
  cudaEvent_t e = nullptr;
  {
    std::lock_guard lock(event_mutex);
    if (!event_pool.empty()) e = event_pool.back(), event_pool.pop_back();
  }
  DeviceGuard guard(device);
  if (!e) HM_CUDA_CHECK(cudaEventCreate(&e));
  HM_CUDA_CHECK(cudaEventRecord(e, stream(device)));
  return e;
}

double event_elapsed_ms(void* start, void* end) {
  HM_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(end)));
  float ms = 0;
  HM_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  return ms;
}

void release_event(void* e) {
  std::lock_guard lock(event_mutex);
  event_pool.push_back(static_cast<cudaEvent_t>(e));
}

[[maybe_unused]] const bool bound =
    (profiler::device_clock = {.record = record_event, .elapsed_ms = event_elapsed_ms, .release = release_event}, true);

}  // namespace

Timing time_on_device(const std::function<void()>& fn, int iters, int warmup, int device) {
  check_device(device, "time_on_device");
  check(iters > 0 && warmup >= 0, "time_on_device", "iters must be > 0 and warmup >= 0, got {} and {}", iters, warmup);
  if (emulated()) return time_on_host(fn, iters, warmup);
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  for (int i = 0; i < warmup; ++i) fn();
  synchronize_device(device);

  std::vector<cudaEvent_t> events(2 * iters, nullptr);
  for (cudaEvent_t& e : events) HM_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<double> ms(iters);
  try {
    for (int i = 0; i < iters; ++i) {
      HM_CUDA_CHECK(cudaEventRecord(events[2 * i], s));
      fn();
      HM_CUDA_CHECK(cudaEventRecord(events[2 * i + 1], s));
    }
    HM_CUDA_CHECK(cudaEventSynchronize(events.back()));
    for (int i = 0; i < iters; ++i) {
      float t = 0;
      HM_CUDA_CHECK(cudaEventElapsedTime(&t, events[2 * i], events[2 * i + 1]));
      ms[i] = t;
    }
  } catch (...) {
    for (cudaEvent_t e : events) HM_CUDA_WARN(cudaEventDestroy(e));
    throw;
  }
  for (cudaEvent_t e : events) HM_CUDA_WARN(cudaEventDestroy(e));

  return summarise(std::move(ms));
}

}  // namespace hm::cuda
