// layer_norm and rms_norm: fused forward kernels that save the per-row statistics
// (mean, rstd), and fused backward kernels producing dx, dweight and dbias in one pass.
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/normalization_kernels.h"

namespace hm {
namespace {

using detail::contiguous_nograd;

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

void check_param(const Tensor& p, const Tensor& x, const Shape& shape, std::string_view what, std::string_view fn) {
  if (!p.defined()) return;
  HM_CHECK(p.dtype() == x.dtype() && p.device() == x.device(), fn, "{} {} does not match input {}", what, p.desc(),
           x.desc());
  HM_CHECK(p.shape() == shape, fn, "{} shape {} must equal normalized shape {}", what, str(p.shape()), str(shape));
}

void check_input(const Tensor& x, double eps, std::string_view fn) {
  check(x.defined(), fn, "undefined tensor");
  // NaN, inf or a negative eps would turn every row into NaN or inf without a word
  check(std::isfinite(eps) && eps >= 0, fn, "eps must be a finite number >= 0, got {}", eps);
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, fn,
           "expected a float32 or float64 tensor, got {}", x.desc());
}

}  // namespace

Tensor layer_norm(const Tensor& x_in, const Shape& normalized_shape, const Tensor& weight_in, const Tensor& bias_in,
                  double eps) {
  check_input(x_in, eps, "layer_norm");
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  HM_CHECK(k >= 1 && k <= x_in.dim() && Shape(x_in.shape().end() - k, x_in.shape().end()) == normalized_shape,
           "layer_norm", "normalized shape {} must match the trailing dims of input {}", str(normalized_shape),
           str(x_in.shape()));
  check_param(weight_in, x_in, normalized_shape, "weight", "layer_norm");
  check_param(bias_in, x_in, normalized_shape, "bias", "layer_norm");
  Tensor x = contiguous_nograd(x_in), w = contiguous_nograd(weight_in), b = contiguous_nograd(bias_in);
  const int64_t n = numel_of(normalized_shape), rows = n == 0 ? 0 : x.numel() / n;
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor mean = Tensor::empty({rows}, x.dtype(), x.device()), rstd = Tensor::empty({rows}, x.dtype(), x.device());
  layer_norm_kernel(x.device(), x, w, b, eps, out, mean, rstd);
  bool rec = autograd::will_record({x_in, weight_in, bias_in});
  return autograd::record(
      "layer_norm", out, {x_in, weight_in, bias_in},
      [sx = rec ? Saved(x) : Saved(), sw = rec ? Saved(w) : Saved(), sm = rec ? Saved(mean) : Saved(),
       sr = rec ? Saved(rstd) : Saved(), normalized_shape](const Tensor& g_in, const NeedsGrad& need) {
        const Tensor& x = sx.get();
        const Tensor& w = sw.get();
        Tensor g = g_in.contiguous();
        Tensor dx, dw, db;
        if (need[0]) dx = Tensor::empty(x.shape(), x.dtype(), x.device());
        if (need[1]) dw = Tensor::empty(w.shape(), x.dtype(), x.device());
        if (need[2]) db = Tensor::empty(normalized_shape, x.dtype(), x.device());
        layer_norm_backward_kernel(x.device(), g, x, w, sm.get(), sr.get(), dx, dw, db);
        return Grads{dx, dw, db};
      });
}

Tensor rms_norm(const Tensor& x_in, const Tensor& weight_in, double eps) {
  check_input(x_in, eps, "rms_norm");
  HM_CHECK(x_in.dim() >= 1, "rms_norm", "input needs at least 1 dim, got {}", x_in.desc());
  check_param(weight_in, x_in, {x_in.size(-1)}, "weight", "rms_norm");
  Tensor x = contiguous_nograd(x_in), w = contiguous_nograd(weight_in);
  const int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor rstd = Tensor::empty({rows}, x.dtype(), x.device());
  rms_norm_kernel(x.device(), x, w, eps, out, rstd);
  bool rec = autograd::will_record({x_in, weight_in});
  return autograd::record("rms_norm", out, {x_in, weight_in},
                          [sx = rec ? Saved(x) : Saved(), sw = rec ? Saved(w) : Saved(),
                           sr = rec ? Saved(rstd) : Saved()](const Tensor& g_in, const NeedsGrad& need) {
                            const Tensor& x = sx.get();
                            const Tensor& w = sw.get();
                            Tensor g = g_in.contiguous();
                            Tensor dx, dw;
                            if (need[0]) dx = Tensor::empty(x.shape(), x.dtype(), x.device());
                            if (need[1]) dw = Tensor::empty(w.shape(), x.dtype(), x.device());
                            rms_norm_backward_kernel(x.device(), g, x, w, sr.get(), dx, dw);
                            return Grads{dx, dw};
                          });
}

}  // namespace hm
