// Timing for `harmonic bench`: milliseconds per call of a function, and of one op of the table
// forward and forward+backward.
// Method (shared with tools/bench/torch/bench_torch.py): warm up, pick an inner count so one timed run
// lasts >= 1 ms, then report the median over `repeat` runs of (run time / inner count). On a
// CUDA device each call is timed on the device instead (cuda/runtime/timing.h: CUDA events on the
// stream, median over `repeat` calls after `warmup`).
#pragma once
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/core/device.h"
#include "harmonic/core/tensor.h"

namespace hm::bench {

struct TimingOptions {
  int repeat = 20;  // timed runs; the median is reported
  int warmup = 3;   // untimed calls first
};

// Median ms per call of fn on `device` (see the file comment for the method).
double time_ms(const std::function<void()>& fn, const TimingOptions& opt, Device device = Device::cpu());

// One op of the table (ops/registry) on generated inputs of the given shapes.
struct OpCase {
  std::string name;  // "matmul 512x512x512"
  std::string op;
  std::vector<Shape> shapes;  // one per tensor input, in the op's order (optional ones may be left out)
  nlohmann::json attrs = nlohmann::json::object();
  bool backward = true;  // also time forward+backward
};

struct OpTiming {
  double fwd_ms = NAN, fwd_bwd_ms = NAN;  // NAN: not timed (nothing to differentiate)
};

// Forward is timed under no-grad; forward+backward calls backward with a ones gradient and
// drops the accumulated input gradients after each call. Inputs: make_inputs (seed 1234).
OpTiming time_op(const OpCase& c, DType dtype, Device device, const TimingOptions& opt);

}  // namespace hm::bench
