// logsumexp and the p-norm over any dims: forward through fused kernels, backward through
// the elementwise reduce_grad kernel with the result broadcast back over the reduced dims.
//   logsumexp: dx = g * exp(x - lse) = g * softmax(x)
//   norm p:    dx = g * sign(x) (|x| / n)^(p-1)    (p = 2: g x / n; 0 where n = 0, not NaN)
//   norm inf:  dx = g * sign(x) [|x| == n] / (number of ties), 0 on a row holding NaN (n is
//              NaN, no |x| equals it, no ties: PyTorch's 0 rather than 0 / 0)
#include <cmath>
#include <limits>

#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/norms_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/reduce_common.h"
#include "harmonic/ops/reduce_grad_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// out = op(x, r, g) elementwise over x's shape; r and g are keepdim-shaped.
Tensor reduce_grad(ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g) {
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  reduce_grad_kernel(x.device(), op, p, x, detail::expand_kept(r, x.shape()), detail::expand_kept(g, x.shape()), out);
  return out;
}

}  // namespace

Tensor logsumexp(const Tensor& x_arg, const Dims& dims_in, bool keepdim) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  detail::check_float(x, "logsumexp");
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), "logsumexp");
  detail::ReduceLayout L = detail::reduce_layout(x, dims);
  Shape kept = detail::keepdim_shape(x.shape(), dims);
  Tensor res = Tensor::empty(kept, x.dtype(), x.device());
  logsumexp_kernel(x.device(), L.x, res);
  Tensor out = keepdim ? res : detail::relabel(res, detail::dropped_shape(x.shape(), dims));
  bool rec = autograd::will_record({x});
  return autograd::record(
      "logsumexp", out, {x},
      [sx = rec ? Saved(x) : Saved(), sr = rec ? Saved(res) : Saved(), kept](const Tensor& g, const NeedsGrad&) {
        return Grads{reduce_grad(ReduceGradOp::LogSumExp, 0.0, sx.get(), sr.get(), detail::grad_kept(g, kept))};
      });
}

Tensor norm(const Tensor& x_arg, double p, const Dims& dims_in, bool keepdim) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  detail::check_float(x, "norm");
  check(!std::isnan(p), "norm", "p must not be NaN");
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), "norm");
  detail::ReduceLayout L = detail::reduce_layout(x, dims);
  HM_CHECK(L.r > 0 || !(std::isinf(p) || p < 0), "norm", "p = {} norm of an empty slice of input {} is undefined", p,
           x.desc());
  Shape kept = detail::keepdim_shape(x.shape(), dims);
  Tensor res = Tensor::empty(kept, x.dtype(), x.device());
  norm_kernel(x.device(), L.x, p, res);
  Tensor out = keepdim ? res : detail::relabel(res, detail::dropped_shape(x.shape(), dims));
  bool rec = autograd::will_record({x});
  return autograd::record(
      "norm", out, {x},
      [sx = rec ? Saved(x) : Saved(), sr = rec ? Saved(res) : Saved(), kept, dims, p](const Tensor& g,
                                                                                      const NeedsGrad&) {
        const Tensor& xv = sx.get();
        Tensor gk = detail::grad_kept(g, kept);
        if (p == 0) return Grads{zeros_like(xv)};  // piecewise constant
        if (std::isinf(p)) {
          Tensor ties = sum(reduce_grad(ReduceGradOp::AbsEqMask, p, xv, sr.get(), gk), dims, true);
          Tensor some_ties = clamp(ties, 1.0, std::numeric_limits<double>::infinity());  // 0 only on NaN rows
          return Grads{mul(reduce_grad(ReduceGradOp::AbsEqSign, p, xv, sr.get(), gk), div(gk, some_ties))};
        }
        return Grads{reduce_grad(ReduceGradOp::Norm, p, xv, sr.get(), gk)};
      });
}

}  // namespace hm
