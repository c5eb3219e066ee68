// layer_norm, rms_norm and add_layer_norm / add_rms_norm (the residual add fused in): fused
// forward kernels that save the per-row statistics (mean, rstd), and fused backward kernels
// producing dx, dweight and dbias in one pass.
#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/normalization_kernels.h"

namespace hm {
namespace {

using detail::contiguous_nograd;

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// bfloat16 rows are normalised in float32: statistics, weight and bias are float32 (a bfloat16
// weight or bias is widened for the kernel, and its gradient rounded back by the engine).
DType stats_dtype(const Tensor& x) { return x.dtype() == DType::BFloat16 ? DType::Float32 : x.dtype(); }

Tensor kernel_param(const Tensor& p, const Tensor& x) {
  Tensor c = contiguous_nograd(p);
  if (!c.defined() || c.dtype() == stats_dtype(x)) return c;
  NoGradGuard guard;
  return c.to(stats_dtype(x));
}

void check_param(const Tensor& p, const Tensor& x, const Shape& shape, std::string_view what, std::string_view fn) {
  if (!p.defined()) return;
  const bool dtype_ok = p.dtype() == x.dtype() || (x.dtype() == DType::BFloat16 && p.dtype() == DType::Float32);
  HM_CHECK(dtype_ok && p.device() == x.device(), fn, "{} {} does not match input {}", what, p.desc(), x.desc());
  HM_CHECK(p.shape() == shape, fn, "{} shape {} must equal normalized shape {}", what, str(p.shape()), str(shape));
}

// A bfloat16 branch on a float32 residual (autocast): the sum is float32. The kernels take r as
// the bfloat16 side; the sum is symmetric, so a bfloat16 x swaps with its float32 r.
bool mixed_residual(const Tensor& x, const Tensor& r) {
  return x.defined() && r.defined() && mixes_bf16_and_float32(x.dtype(), r.dtype());
}

void check_input(const Tensor& x, double eps, std::string_view fn) {
  check(x.defined(), fn, "undefined tensor");
  // NaN, inf or a negative eps would turn every row into NaN or inf without a word
  check(std::isfinite(eps) && eps >= 0, fn, "eps must be a finite number >= 0, got {}", eps);
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::BFloat16, fn,
           "expected a float32, float64 or bfloat16 tensor, got {}", x.desc());
}

}  // namespace

namespace {

void check_layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                      double eps, std::string_view fn) {
  check_input(x, eps, fn);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  HM_CHECK(k >= 1 && k <= x.dim() && Shape(x.shape().end() - k, x.shape().end()) == normalized_shape, fn,
           "normalized shape {} must match the trailing dims of input {}", str(normalized_shape), str(x.shape()));
  check_param(weight, x, normalized_shape, "weight", fn);
  check_param(bias, x, normalized_shape, "bias", fn);
}

// Records out = layer_norm(x_in) given the kernel's saved statistics; x is x_in's values, contiguous.
Tensor record_layer_norm(const Tensor& out, const Tensor& x_in, const Tensor& x, const Tensor& weight_in,
                         const Tensor& w, const Tensor& bias_in, const Tensor& mean, const Tensor& rstd,
                         const Shape& normalized_shape) {
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
        if (need[1]) dw = Tensor::empty(w.shape(), stats_dtype(x), x.device());
        if (need[2]) db = Tensor::empty(normalized_shape, stats_dtype(x), x.device());
        layer_norm_backward_kernel(x.device(), g, x, w, sm.get(), sr.get(), dx, dw, db);
        return Grads{dx, dw, db};
      });
}

}  // namespace

Tensor layer_norm(const Tensor& x_in, const Shape& normalized_shape, const Tensor& weight_in, const Tensor& bias_in,
                  double eps) {
  check_layer_norm(x_in, normalized_shape, weight_in, bias_in, eps, "layer_norm");
  Tensor x = contiguous_nograd(x_in), w = kernel_param(weight_in, x), b = kernel_param(bias_in, x);
  const int64_t n = numel_of(normalized_shape), rows = n == 0 ? 0 : x.numel() / n;
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor mean = Tensor::empty({rows}, stats_dtype(x), x.device()), rstd = Tensor::empty({rows}, stats_dtype(x), x.device());
  layer_norm_kernel(x.device(), x, w, b, eps, out, mean, rstd);
  return record_layer_norm(out, x_in, x, weight_in, w, bias_in, mean, rstd, normalized_shape);
}

namespace {

void check_add_layer_norm(const Tensor& x, const Tensor& r, const Shape& normalized_shape, const Tensor& weight,
                          const Tensor& bias, double eps) {
  check(r.defined(), "add_layer_norm", "undefined tensor");
  check_layer_norm(x, normalized_shape, weight, bias, eps, "add_layer_norm");
  HM_CHECK(x.shape() == r.shape() && (x.dtype() == r.dtype() || mixed_residual(x, r)) && x.device() == r.device(),
           "add_layer_norm", "x {} and r {} must have one shape, dtype and device", x.desc(), r.desc());
}

}  // namespace

std::pair<Tensor, Tensor> detail::add_layer_norm_composed(const Tensor& x, const Tensor& r,
                                                          const Shape& normalized_shape, const Tensor& weight,
                                                          const Tensor& bias, double eps) {
  check_add_layer_norm(x, r, normalized_shape, weight, bias, eps);
  Tensor sum = add(x, r);
  return {sum, layer_norm(sum, normalized_shape, weight, bias, eps)};
}

std::pair<Tensor, Tensor> add_layer_norm(const Tensor& x_in, const Tensor& r_in, const Shape& normalized_shape,
                                         const Tensor& weight_in, const Tensor& bias_in, double eps) {
  if (x_in.defined() && x_in.dtype() == DType::BFloat16 && mixed_residual(x_in, r_in))
    return add_layer_norm(r_in, x_in, normalized_shape, weight_in, bias_in, eps);
  check_add_layer_norm(x_in, r_in, normalized_shape, weight_in, bias_in, eps);
  Tensor x = contiguous_nograd(x_in), r = contiguous_nograd(r_in);
  Tensor w = kernel_param(weight_in, x), b = kernel_param(bias_in, x);
  const int64_t n = numel_of(normalized_shape), rows = n == 0 ? 0 : x.numel() / n;
  Tensor sum = Tensor::empty(x.shape(), x.dtype(), x.device()), out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor mean = Tensor::empty({rows}, stats_dtype(x), x.device()), rstd = Tensor::empty({rows}, stats_dtype(x), x.device());
  add_layer_norm_kernel(x.device(), x, r, w, b, eps, sum, out, mean, rstd);
  // The graph of add then layer_norm: the sum's node passes its gradient to both inputs.
  Tensor sum_out = autograd::record("add", sum, {x_in, r_in}, [](const Tensor& g, const NeedsGrad& need) {
    return Grads{need[0] ? g : Tensor(), need[1] ? g : Tensor()};
  });
  return {sum_out, record_layer_norm(out, sum_out, sum, weight_in, w, bias_in, mean, rstd, normalized_shape)};
}

namespace {

void check_rms_norm(const Tensor& x, const Tensor& weight, double eps, std::string_view fn) {
  check_input(x, eps, fn);
  HM_CHECK(x.dim() >= 1, fn, "input needs at least 1 dim, got {}", x.desc());
  check_param(weight, x, {x.size(-1)}, "weight", fn);
}

// Records out = rms_norm(x_in) given the kernel's saved rstd; x is x_in's values, contiguous.
Tensor record_rms_norm(const Tensor& out, const Tensor& x_in, const Tensor& x, const Tensor& weight_in, const Tensor& w,
                       const Tensor& rstd) {
  bool rec = autograd::will_record({x_in, weight_in});
  return autograd::record("rms_norm", out, {x_in, weight_in},
                          [sx = rec ? Saved(x) : Saved(), sw = rec ? Saved(w) : Saved(),
                           sr = rec ? Saved(rstd) : Saved()](const Tensor& g_in, const NeedsGrad& need) {
                            const Tensor& x = sx.get();
                            const Tensor& w = sw.get();
                            Tensor g = g_in.contiguous();
                            Tensor dx, dw;
                            if (need[0]) dx = Tensor::empty(x.shape(), x.dtype(), x.device());
                            if (need[1]) dw = Tensor::empty(w.shape(), stats_dtype(x), x.device());
                            rms_norm_backward_kernel(x.device(), g, x, w, sr.get(), dx, dw);
                            return Grads{dx, dw};
                          });
}

void check_add_rms_norm(const Tensor& x, const Tensor& r, const Tensor& weight, double eps) {
  check(r.defined(), "add_rms_norm", "undefined tensor");
  check_rms_norm(x, weight, eps, "add_rms_norm");
  HM_CHECK(x.shape() == r.shape() && (x.dtype() == r.dtype() || mixed_residual(x, r)) && x.device() == r.device(),
           "add_rms_norm", "x {} and r {} must have one shape, dtype and device", x.desc(), r.desc());
}

}  // namespace

Tensor rms_norm(const Tensor& x_in, const Tensor& weight_in, double eps) {
  check_rms_norm(x_in, weight_in, eps, "rms_norm");
  Tensor x = contiguous_nograd(x_in), w = kernel_param(weight_in, x);
  const int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor rstd = Tensor::empty({rows}, stats_dtype(x), x.device());
  rms_norm_kernel(x.device(), x, w, eps, out, rstd);
  return record_rms_norm(out, x_in, x, weight_in, w, rstd);
}

std::pair<Tensor, Tensor> detail::add_rms_norm_composed(const Tensor& x, const Tensor& r, const Tensor& weight,
                                                        double eps) {
  check_add_rms_norm(x, r, weight, eps);
  Tensor sum = add(x, r);
  return {sum, rms_norm(sum, weight, eps)};
}

std::pair<Tensor, Tensor> add_rms_norm(const Tensor& x_in, const Tensor& r_in, const Tensor& weight_in, double eps) {
  if (x_in.defined() && x_in.dtype() == DType::BFloat16 && mixed_residual(x_in, r_in))
    return add_rms_norm(r_in, x_in, weight_in, eps);
  check_add_rms_norm(x_in, r_in, weight_in, eps);
  Tensor x = contiguous_nograd(x_in), r = contiguous_nograd(r_in), w = kernel_param(weight_in, x);
  const int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  Tensor sum = Tensor::empty(x.shape(), x.dtype(), x.device()), out = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor rstd = Tensor::empty({rows}, stats_dtype(x), x.device());
  add_rms_norm_kernel(x.device(), x, r, w, eps, sum, out, rstd);
  Tensor sum_out = autograd::record("add", sum, {x_in, r_in}, [](const Tensor& g, const NeedsGrad& need) {
    return Grads{need[0] ? g : Tensor(), need[1] ? g : Tensor()};
  });
  return {sum_out, record_rms_norm(out, sum_out, sum, weight_in, w, rstd)};
}

}  // namespace hm
