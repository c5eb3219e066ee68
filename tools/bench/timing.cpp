// Timing of functions and table ops (tools/bench/timing.h).
#include "harmonic/tools/bench/timing.h"

#include <algorithm>
#include <chrono>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/cuda/runtime/timing.h"
#include "harmonic/ops/registry/registry.h"

namespace hm::bench {

double time_ms(const std::function<void()>& fn, const TimingOptions& opt, Device device) {
  if (device.is_cuda()) return cuda::time_on_device(fn, opt.repeat, opt.warmup, device.index).median_ms;
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  for (int i = 0; i < opt.warmup; ++i) fn();
  auto t0 = Clock::now();
  fn();
  double single = std::max(ms_since(t0), 1e-4);
  int inner = static_cast<int>(std::clamp(std::ceil(1.0 / single), 1.0, 10000.0));
  std::vector<double> runs;
  for (int r = 0; r < opt.repeat; ++r) {
    t0 = Clock::now();
    for (int i = 0; i < inner; ++i) fn();
    runs.push_back(ms_since(t0) / inner);
  }
  std::sort(runs.begin(), runs.end());
  size_t n = runs.size();
  return n % 2 ? runs[n / 2] : 0.5 * (runs[n / 2 - 1] + runs[n / 2]);
}

OpTiming time_op(const OpCase& c, DType dtype, Device device, const TimingOptions& opt) {
  const ops::OpSpec& spec = ops::find_op(c.op);
  Generator gen(1234);
  std::vector<Tensor> inputs = ops::make_inputs(spec, c.shapes, c.attrs, dtype, gen);
  for (Tensor& t : inputs)
    if (t.defined()) t = t.to(device);
  OpTiming r;
  {
    NoGradGuard no_grad;
    r.fwd_ms = time_ms([&] { spec.call(inputs, c.attrs); }, opt, device);
  }
  if (!c.backward) return r;
  std::vector<Tensor> leaves;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ops::OpInput& in = spec.input(k);
    if (inputs[k].defined() && in.differentiable() && is_floating(inputs[k].dtype()))
      leaves.push_back(inputs[k].requires_grad_(true));
  }
  EnableGradGuard grad_on;
  Tensor probe = spec.call(inputs, c.attrs);
  if (leaves.empty() || !probe.requires_grad()) return r;  // nothing to differentiate
  Tensor g = ones_like(probe);
  r.fwd_bwd_ms = time_ms(
      [&] {
        spec.call(inputs, c.attrs).backward(g);
        for (const Tensor& t : leaves) t.zero_grad();
      },
      opt, device);
  return r;
}

}  // namespace hm::bench
