// CUDA-event timing of a callable (see cuda/timing.h).
#include <algorithm>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/context.cuh"
#include "cuda/timing.h"

namespace hm::cuda {

Timing time_on_device(const std::function<void()>& fn, int iters, int warmup, int device) {
  check_device(device, "time_on_device");
  check(iters > 0 && warmup >= 0, "time_on_device", "iters must be > 0 and warmup >= 0, got {} and {}", iters, warmup);
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

  Timing t;
  t.iters = iters;
  for (double v : ms) t.mean_ms += v / iters;
  std::sort(ms.begin(), ms.end());
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.median_ms = iters % 2 ? ms[iters / 2] : 0.5 * (ms[iters / 2 - 1] + ms[iters / 2]);
  return t;
}

}  // namespace hm::cuda
