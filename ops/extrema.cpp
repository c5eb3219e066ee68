// amax/amin over any dims, max/min along one dim with indices, argmax/argmin: forward and
// backward side by side. amax/amin split the gradient evenly between tied extrema (like
// PyTorch); max/min send it to the returned index only.
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/extrema_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/reduce_common.h"
#include "harmonic/ops/reduce_grad_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// Runs the extrema kernel: values (keepdim shape) and optionally indices.
struct ExtremaResult {
  Tensor values, indices;  // keepdim-shaped
};
ExtremaResult run_extrema(ExtremaOp op, const Tensor& x, const std::vector<int64_t>& dims, bool want_indices,
                          std::string_view name) {
  detail::check_numeric(x, name);
  detail::ReduceLayout L = detail::reduce_layout(x, dims);
  HM_CHECK(L.r > 0, name, "cannot reduce over an empty dim: input {}, dims {} (the result has no identity)", x.desc(),
           str(dims));
  Shape kept = detail::keepdim_shape(x.shape(), dims);
  ExtremaResult res{Tensor::empty(kept, x.dtype(), x.device()),
                    want_indices ? Tensor::empty(kept, DType::Int64, x.device()) : Tensor()};
  extrema_kernel(x.device(), op, L.x, res.values, res.indices);
  return res;
}

Tensor amax_amin(ExtremaOp op, const Tensor& x_arg, const Dims& dims_in, bool keepdim, std::string_view name) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  check(x.defined(), name, "undefined tensor");
  std::vector<int64_t> dims = normalize_dims(dims_in, x.dim(), name);
  ExtremaResult res = run_extrema(op, x, dims, false, name);
  Shape kept = res.values.shape();
  Tensor out = keepdim ? res.values : detail::relabel(res.values, detail::dropped_shape(x.shape(), dims));
  bool rec = autograd::will_record({x});
  return autograd::record(name, out, {x},
                          [sx = rec ? Saved(x) : Saved(), sv = rec ? Saved(res.values) : Saved(), dims, kept](
                              const Tensor& g, const NeedsGrad&) {
                            // dx = g * [x == extremum] / (number of tied extrema)
                            const Tensor& xv = sx.get();
                            Tensor gk = detail::grad_kept(g, kept);
                            Tensor mask = Tensor::empty(xv.shape(), xv.dtype(), xv.device());
                            reduce_grad_kernel(xv.device(), ReduceGradOp::EqMask, 0.0, xv,
                                               detail::expand_kept(sv.get(), xv.shape()),
                                               detail::expand_kept(gk, xv.shape()), mask);
                            return Grads{mul(mask, div(gk, sum(mask, dims, true)))};
                          });
}

ValuesIndices max_min(ExtremaOp op, const Tensor& x_arg, int64_t dim, bool keepdim, std::string_view name) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  check(x.defined(), name, "undefined tensor");
  const int64_t d = normalize_dim(dim, x.dim(), name);
  std::vector<int64_t> dims = x.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d};
  ExtremaResult res = run_extrema(op, x, dims, true, name);
  Shape kept = res.values.shape();
  ValuesIndices out{res.values, res.indices};
  if (!keepdim) {
    Shape dropped = detail::dropped_shape(x.shape(), dims);
    out = {detail::relabel(res.values, dropped), detail::relabel(res.indices, dropped)};
  }
  bool rec = autograd::will_record({x});
  out.values = autograd::record(name, out.values, {x},
                                [si = rec ? Saved(res.indices) : Saved(), shape = x.shape(), dtype = x.dtype(), d,
                                 kept](const Tensor& g, const NeedsGrad&) {
                                  Tensor gk = detail::grad_kept(g, kept);
                                  if (shape.empty()) return Grads{gk};
                                  // dx = g where the position along d equals the index: (1,..,n,..,1) == (..,1,..).
                                  const Tensor& idx = si.get();
                                  Shape pos_shape(shape.size(), 1);
                                  pos_shape[d] = shape[d];
                                  Tensor pos = detail::relabel(
                                      arange(shape[d], {.dtype = DType::Int64, .device = idx.device()}), pos_shape);
                                  Tensor hit = detail::binary_forward(BinaryOp::Eq, pos, idx, "max_backward").to(dtype);
                                  return Grads{mul(hit, gk)};
                                });
  return out;
}

Tensor arg_extremum(ExtremaOp op, const Tensor& x_arg, int64_t dim, bool keepdim, std::string_view name) {
  const Tensor x = autocast_widen(x_arg);  // bfloat16 under autocast: computed in float32
  check(x.defined(), name, "undefined tensor");
  const int64_t d = normalize_dim(dim, x.dim(), name);
  std::vector<int64_t> dims = x.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{d};
  Tensor idx = run_extrema(op, x, dims, true, name).indices;
  return keepdim ? idx : detail::relabel(idx, detail::dropped_shape(x.shape(), dims));
}

}  // namespace

Tensor amax(const Tensor& x, const Dims& dims, bool keepdim) {
  return amax_amin(ExtremaOp::Max, x, dims, keepdim, "amax");
}
Tensor amin(const Tensor& x, const Dims& dims, bool keepdim) {
  return amax_amin(ExtremaOp::Min, x, dims, keepdim, "amin");
}
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim) {
  return max_min(ExtremaOp::Max, x, dim, keepdim, "max");
}
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim) {
  return max_min(ExtremaOp::Min, x, dim, keepdim, "min");
}
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_extremum(ExtremaOp::Max, x, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  return arg_extremum(ExtremaOp::Min, x, dim, keepdim, "argmin");
}

}  // namespace hm
