// Inclusive cumulative sum along one dim; its gradient is the reversed cumulative sum of
// the output gradient (dx_k = sum_{j >= k} g_j), the same kernel scanning from the back.
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/cumsum_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/reduce_common.h"

namespace hm {
namespace {

// x viewed as a contiguous (outer, n, inner) around dim d; the scan result has x's shape.
Tensor scan(const Tensor& x, int64_t d, bool reverse) {
  Tensor c = x.contiguous();
  int64_t outer = 1, inner = 1, n = x.dim() == 0 ? 1 : x.shape()[d];
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i < d) outer *= x.shape()[i];
    if (i > d) inner *= x.shape()[i];
  }
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  cumsum_kernel(x.device(), detail::relabel(c, {outer, n, inner}), reverse, detail::relabel(out, {outer, n, inner}));
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& x_arg, int64_t dim) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  check(x.defined(), "cumsum", "undefined tensor");
  const int64_t d = normalize_dim(dim, x.dim(), "cumsum");
  // bool counts like PyTorch (int64 result); other dtypes keep theirs.
  Tensor in = x.dtype() == DType::Bool ? x.to(DType::Int64) : x;
  detail::check_numeric(in, "cumsum");
  Tensor out = scan(in, d, false);
  return autograd::record("cumsum", out, {x}, [d](const Tensor& g, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{scan(g, d, true)};
  });
}

}  // namespace hm
