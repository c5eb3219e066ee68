// Device test harness: one test body per target, compared with the CPU using the
// normalised error mse(ref, got) / mse(ref, 0) of ggml's test-backend-ops (default 1e-7,
// overridable per check). Targets:
//   - "cuda:0", when a device is present;
//   - in CUDA builds, the host twins of the CUDA kernels (cuda/runtime/emulation.h): the device
//     kernels' own per-thread code run on the CPU, with 32-bit and forced 64-bit index math,
//     so machines without a GPU still test the kernels' index math, conversions and splits.
// Usage in a CUDA op family's tests (name the case "[cuda] ..." so -tc='*cuda*' and
// ctest -R cuda select it on a GPU machine):
//   TEST_CASE("[cuda] softmax matches the CPU") {
//     announce_targets();  // prints "skipped: no CUDA device" when there is none
//     check_against_cpu("softmax", [](auto& x) { return softmax(x[0], -1); }, {leaf64({4, 7})});
//   }
#pragma once
#include <functional>
#include <string>

#include "harmonic/cuda/runtime/runtime.h"
#include "tests/helpers.h"
#ifdef HARMONIC_WITH_CUDA
#include "harmonic/cuda/runtime/emulation.h"
#endif

namespace hm::test {

#ifdef HARMONIC_WITH_CUDA
inline constexpr bool kBuiltWithCuda = true;
#else
inline constexpr bool kBuiltWithCuda = false;
#endif

// mse(ref, got) / mse(ref, 0); NaNs must sit at the same places. An all-zero reference
// gives the plain mse (so zeros vs zeros is 0).
inline double normalized_error(const Tensor& ref, const Tensor& got) {
  if (ref.shape() != got.shape()) return INFINITY;
  std::vector<double> a = ref.to_vector(), b = got.to_vector();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
      continue;
    }
    if (std::isinf(a[i]) || std::isinf(b[i])) {
      if (a[i] != b[i]) return INFINITY;
      continue;
    }
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += a[i] * a[i];
  }
  return norm > 0 ? diff / norm : diff;
}

inline constexpr double kTolerance = 1e-7;

inline void check_close(const Tensor& ref, const Tensor& got, const std::string& what, double tol = kTolerance) {
  const double err = normalized_error(ref, got);
  INFO(what << ": normalised error " << err << " (tolerance " << tol << "), " << ref.desc() << " vs " << got.desc());
  CHECK(err <= tol);
}

// Exact element-by-element equality (same dtype and shape; NaN equals NaN).
inline bool same_values(const Tensor& ref, const Tensor& got) {
  if (ref.dtype() != got.dtype() || ref.shape() != got.shape()) return false;
  std::vector<double> a = ref.to_vector(), b = got.to_vector();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] && !(std::isnan(a[i]) && std::isnan(b[i]))) {
      MESSAGE("element " << i << ": " << a[i] << " vs " << b[i]);
      return false;
    }
  return true;
}

struct Target {
  std::string name;
  Device device;
  bool emulate = false;      // run on the CPU through the CUDA kernels' host twins
  bool force_64bit = false;  // host twins with 64-bit index math
};

// First line of every "[cuda]" case: says visibly when the device part is skipped.
inline void announce_targets() {
  if (!cuda::available())
    MESSAGE("skipped: no CUDA device (" << cuda::describe() << ")"
                                        << std::string(kBuiltWithCuda ? "; checking the kernels' host twins" : ""));
}

// Runs fn(target) on every comparison target (see the file comment).
inline void for_each_device(const std::function<void(const Target&)>& fn) {
  if (cuda::available()) fn({"cuda:0", Device::cuda(0)});
#ifdef HARMONIC_WITH_CUDA
  for (bool force_64bit : {false, true}) {
    Target t{force_64bit ? "cuda host twin, 64-bit index" : "cuda host twin", Device::cpu(), true, force_64bit};
    cuda::HostEmulation scope(force_64bit);
    fn(t);
  }
#endif
}

// Runs f on `device` with fresh leaves made from the CPU inputs, backpropagates `upstream`
// when the output is differentiable, and returns the output and input gradients on the CPU.
struct Run {
  Tensor out;
  std::vector<Tensor> grads;
};

inline Run run_on(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                  Device device, const Tensor& upstream) {
  std::vector<Tensor> xs;
  for (const Tensor& in : inputs) {
    Tensor x = in.detach().to(device).detach();
    if (is_floating(x.dtype())) x.requires_grad_(true);
    xs.push_back(x);
  }
  Run r;
  Tensor out = f(xs);
  if (out.requires_grad() && upstream.defined()) {
    out.backward(upstream.to(device));
    for (const Tensor& x : xs) r.grads.push_back(x.grad().defined() ? x.grad().to(Device::cpu()) : Tensor());
  }
  r.out = out.detach().to(Device::cpu());
  return r;
}

// The op-level harness: f on the CPU is the reference; every target must match its output
// and the gradients of its floating inputs.
inline void check_against_cpu(const std::string& what, const std::function<Tensor(const std::vector<Tensor>&)>& f,
                              const std::vector<Tensor>& inputs, double tol = kTolerance) {
  Tensor probe = f(inputs);
  Generator gen(1234);
  Tensor upstream = is_floating(probe.dtype()) ? randn(probe.shape(), {.dtype = probe.dtype()}, &gen) : Tensor();
  const Run ref = run_on(f, inputs, Device::cpu(), upstream);
  for_each_device([&](const Target& t) {
    const Run got = run_on(f, inputs, t.device, upstream);
    check_close(ref.out, got.out, what + " forward on " + t.name, tol);
    REQUIRE(ref.grads.size() == got.grads.size());
    for (size_t i = 0; i < ref.grads.size(); ++i)
      if (ref.grads[i].defined()) check_close(ref.grads[i], got.grads[i], what + " grad " + std::to_string(i), tol);
  });
}

// A view of t's storage with another shape/strides/offset (non-contiguous test inputs
// without depending on the shape ops).
inline Tensor view(const Tensor& t, Shape shape, Strides strides, int64_t offset = 0) {
  return Tensor::view_of(t.storage(), std::move(shape), std::move(strides), t.offset() + offset, t.dtype());
}

// Computes a reference inside a target's body with the real CPU kernels, even while the
// host twins are installed.
template <class F>
auto on_cpu(F&& f) {
#ifdef HARMONIC_WITH_CUDA
  cuda::RealCpuKernels real;
#endif
  return f();
}

}  // namespace hm::test
