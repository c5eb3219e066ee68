// sum, mean and sum_to: the reductions every broadcasting backward relies on.
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/reduce_common.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/ops/sum_kernels.h"

namespace hm {
using detail::dropped_shape;
using detail::expand_kept;
using detail::keepdim_shape;
using detail::relabel;

Tensor sum(const Tensor& x, const Dims& dims_in, bool keepdim) {
  check(x.defined(), "sum", "undefined tensor");
  check(x.dtype() != DType::Bool, "sum", "cannot sum a bool tensor; convert with .to(DType::Int64)");
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), "sum");
  Shape kept = keepdim_shape(x.shape(), dims);
  Tensor out = Tensor::empty(kept, x.dtype(), x.device());
  sum_kernel(x.device(), x, dims, out);
  if (!keepdim) out = relabel(out, dropped_shape(x.shape(), dims));
  return autograd::record("sum", out, {x}, [kept, shape = x.shape()](const Tensor& g, const autograd::NeedsGrad&) {
    return std::vector<Tensor>{expand_kept(relabel(g.contiguous(), kept), shape)};
  });
}

Tensor mean(const Tensor& x, const Dims& dims_in, bool keepdim) {
  check(x.defined(), "mean", "undefined tensor");
  HM_CHECK(is_floating(x.dtype()), "mean", "expected a floating-point tensor, got {}", x.desc());
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), "mean");
  int64_t count = 1;
  for (int64_t d : dims) count *= x.shape()[d];
  // Over no elements the mean is 0 / 0 = NaN, as in PyTorch and NumPy (torch.zeros(0, 3).mean(0)).
  return div(sum(x, dims, keepdim), static_cast<double>(count));
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  HM_CHECK(lead >= 0, "sum_to", "cannot reduce {} to {}", str(grad.shape()), str(shape));
  for (size_t d = 0; d < shape.size(); ++d)
    HM_CHECK(shape[d] == 1 || shape[d] == grad.shape()[d + lead], "sum_to",
             "cannot reduce {} to {}: dim {} of the target must be 1 or {}", str(grad.shape()), str(shape), d,
             grad.shape()[d + lead]);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && grad.shape()[d] != 1)) dims.push_back(d);
  return reshape(sum(grad, dims, true), shape);  // differentiable, so double backward works
}

}  // namespace hm
