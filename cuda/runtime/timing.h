// Device timing for benchmarks (`harmonic bench --device cuda`): CUDA events recorded on
// the device's stream around each call measure the GPU time of the work the callable
// queued, without the host waiting between calls. No CUDA headers; safe anywhere.
#pragma once
#include <functional>

namespace hm::cuda {

struct Timing {
  double mean_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
  int iters = 0;
};

// Runs fn `warmup` times (untimed, then waits), then `iters` timed times. Throws in
// CPU-only builds and without a device.
Timing time_on_device(const std::function<void()>& fn, int iters = 20, int warmup = 3, int device = 0);

}  // namespace hm::cuda
