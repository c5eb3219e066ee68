// var and std over any dims with a correction (1 = unbiased, PyTorch's default): forward
// through the fused two-pass moments kernel, backward analytic from the saved mean.
//   var: dx = g * 2 (x - mean) / (N - correction)
//   std: dx = g * (x - mean) / ((N - correction) std), 0 where std = 0 (like PyTorch)
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/moments_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/reduce_common.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

Tensor moments(const Tensor& x_arg, const Dims& dims_in, int64_t correction, bool keepdim, bool is_std,
               std::string_view name) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  detail::check_float(x, name);
  check(correction >= 0, name, "correction must be >= 0, got {}", correction);
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), name);
  detail::ReduceLayout L = detail::reduce_layout(x, dims);
  Shape kept = detail::keepdim_shape(x.shape(), dims);
  Tensor mean = Tensor::empty(kept, x.dtype(), x.device());
  Tensor res = Tensor::empty(kept, x.dtype(), x.device());
  moments_kernel(x.device(), L.x, correction, is_std, mean, res);
  Tensor out = keepdim ? res : detail::relabel(res, detail::dropped_shape(x.shape(), dims));
  bool rec = autograd::will_record({x});
  const double denom = static_cast<double>(L.r - correction);
  return autograd::record(
      name, out, {x},
      [sx = rec ? Saved(x) : Saved(), sm = rec ? Saved(mean) : Saved(), ss = rec && is_std ? Saved(res) : Saved(), kept,
       denom, is_std](const Tensor& g, const NeedsGrad&) {
        const Tensor& xv = sx.get();
        Tensor gk = detail::grad_kept(g, kept);
        Tensor scale;  // (kept)
        if (!is_std) {
          scale = mul(gk, 2.0 / denom);
        } else {
          const Tensor& s = ss.get();
          Tensor zero =
              detail::binary_forward(BinaryOp::Eq, s, detail::scalar_like(s, 0.0), "std_backward").to(s.dtype());
          // g / (denom * std) where std > 0, else 0 (zero is 1 there, so no 0/0).
          scale = div(mul(gk, rsub(zero, 1.0)), add(mul(s, denom), zero));
        }
        return Grads{mul(sub(xv, sm.get()), scale)};
      });
}

}  // namespace

Tensor var(const Tensor& x, const Dims& dims, int64_t correction, bool keepdim) {
  return moments(x, dims, correction, keepdim, false, "var");
}

Tensor std(const Tensor& x, const Dims& dims, int64_t correction, bool keepdim) {
  return moments(x, dims, correction, keepdim, true, "std");
}

}  // namespace hm
