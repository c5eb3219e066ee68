// stft and log_spectrogram (ops/fft.h): framing is its own differentiable step
// (detail::stft_frames, kernels frame_kernel / overlap_add_kernel over the functors of
// ops/fft_functors.h), then rfft over each frame, then a transposed view to torch's
// (..., bins, frames) order. The framing's backward is the overlap-add of the frame
// gradients times the window, folded back through the reflect padding (and the overlap-add's
// backward is the framing again).
#include <cmath>
#include <numbers>
#include <vector>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fft.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/ops/stft.h"
#include "harmonic/ops/stft_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

constexpr const char* kStft = "stft";

// The frame geometry of x (..., T), checked like torch.stft.
FrameArgs frame_args(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop_opt, bool center) {
  check(x.defined(), kStft, "undefined tensor");
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, kStft,
           "expected a float32 or float64 signal, got {}", x.desc());
  HM_CHECK(x.dim() >= 1 && x.size(-1) >= 1, kStft, "expected a signal (..., T >= 1), got {}", x.desc());
  const int64_t hop = hop_opt.value_or(std::max<int64_t>(n_fft / 4, 1)), T = x.size(-1);
  check(n_fft >= 1, kStft, "n_fft must be >= 1, got {}", n_fft);
  check(hop >= 1, kStft, "hop must be >= 1, got {}", hop);
  const int64_t pad = center ? n_fft / 2 : 0;
  if (center)
    HM_CHECK(pad < T, kStft, "center=true reflect-pads n_fft / 2 = {} samples, which needs T > {}, got {}", pad, pad,
             x.desc());
  else
    HM_CHECK(T >= n_fft, kStft, "center=false needs T >= n_fft = {}, got {}", n_fft, x.desc());
  return FrameArgs{.length = T, .n_fft = n_fft, .hop = hop, .pad = pad, .frames = 1 + (T + 2 * pad - n_fft) / hop};
}

// The window zero-padded to n_fft (centred, like torch), contiguous in x's dtype and device.
Tensor full_window(const Tensor& window, int64_t n_fft, const Tensor& x) {
  if (!window.defined()) return ones({n_fft}, {.dtype = x.dtype(), .device = x.device()});
  HM_CHECK(window.dim() == 1 && window.size(0) >= 1 && window.size(0) <= n_fft, kStft,
           "window must be 1-d with 1 <= length <= n_fft = {}, got {}", n_fft, window.desc());
  HM_CHECK(window.dtype() == x.dtype() && window.device() == x.device(), kStft,
           "window {} must match the signal's dtype and device, {}", window.desc(), x.desc());
  NoGradGuard no_grad;
  const int64_t left = (n_fft - window.size(0)) / 2;
  return pad(window.detach(), {left, n_fft - window.size(0) - left}).contiguous();
}

Tensor overlap_add(const Tensor& g, const Tensor& w, const FrameArgs& a, const Shape& x_shape);

// x (..., T) -> (..., frames, n_fft).
Tensor frames_core(const Tensor& x, const Tensor& w, const FrameArgs& a) {
  Tensor xc;
  {
    NoGradGuard no_grad;
    xc = x.contiguous();
  }
  Shape shape = x.shape();
  shape.back() = a.frames;
  shape.push_back(a.n_fft);
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  frame_kernel(x.device(), xc, w, a, out);
  return autograd::record("stft_frames", out, {x}, [w, a, x_shape = x.shape()](const Tensor& g, const NeedsGrad&) {
    return Grads{overlap_add(g, w, a, x_shape)};
  });
}

// g (..., frames, n_fft) -> (..., T): the adjoint of frames_core.
Tensor overlap_add(const Tensor& g, const Tensor& w, const FrameArgs& a, const Shape& x_shape) {
  Tensor gc;
  {
    NoGradGuard no_grad;
    gc = g.contiguous();
  }
  Tensor dx = Tensor::empty(x_shape, g.dtype(), g.device());
  overlap_add_kernel(g.device(), gc, w, a, dx);
  return autograd::record("stft_frames_backward", dx, {g},
                          [w, a](const Tensor& gg, const NeedsGrad&) { return Grads{frames_core(gg, w, a)}; });
}

}  // namespace

namespace detail {

Tensor stft_frames(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop, const Tensor& window, bool center) {
  const FrameArgs a = frame_args(x, n_fft, hop, center);
  return frames_core(x, full_window(window, n_fft, x), a);
}

}  // namespace detail

Tensor stft(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop, const Tensor& window, bool center) {
  Tensor spec = rfft(detail::stft_frames(x, n_fft, hop, window, center));  // (..., frames, bins, 2)
  return transpose(spec, -3, -2);                                          // (..., bins, frames, 2)
}

Tensor log_spectrogram(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop, const Tensor& window, bool center,
                       double eps) {
  check(eps > 0.0 && std::isfinite(eps), "log_spectrogram", "eps must be positive and finite, got {}", eps);
  Tensor power = sum(square(stft(x, n_fft, hop, window, center)), {-1});  // (..., bins, frames)
  return log(add(power, eps));
}

Tensor hann_window(int64_t n, bool periodic, TensorOptions opt) {
  check(n >= 1, "hann_window", "window length must be >= 1, got {}", n);
  check(opt.dtype == DType::Float32 || opt.dtype == DType::Float64, "hann_window",
        "expected a float32 or float64 dtype, got {}", dtype_name(opt.dtype));
  const double N = periodic ? double(n) : double(n - 1);
  std::vector<double> w(n, 1.0);  // n = 1: [1], like torch
  if (n > 1)
    for (int64_t k = 0; k < n; ++k) w[k] = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * double(k) / N);
  Tensor out = from_vector(w, {n}).to(opt.dtype).to(opt.device);
  if (opt.requires_grad) out.requires_grad_(true);
  return out;
}

}  // namespace hm
