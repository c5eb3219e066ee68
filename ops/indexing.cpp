// The gather/scatter family. Each op and its backward sit together; the backward of a
// gather is a scatter_add into zeros and vice versa. Bounds are checked in the kernels.
#include "harmonic/ops/indexing.h"

#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/indexing_kernels.h"
#include "harmonic/ops/shape_common.h"

namespace hm {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

namespace {

void check_operands(std::string_view fn, const Tensor& x, const Tensor& index) {
  check(x.defined() && index.defined(), fn, "undefined tensor");
  HM_CHECK(index.dtype() == DType::Int64, fn, "index must be int64, got {}", index.desc());
  HM_CHECK(index.device() == x.device(), fn, "index is on {} but x is on {}", index.device().str(), x.device().str());
  HM_CHECK(x.dim() > 0, fn, "cannot index a 0-d tensor ({})", x.desc());
}

void check_source(std::string_view fn, const Tensor& x, const Tensor& src) {
  check(src.defined(), fn, "undefined src");
  HM_CHECK(src.dtype() == x.dtype() && src.device() == x.device(), fn, "src is {} but x is {}", src.desc(), x.desc());
}

// A fresh contiguous copy of x, not recorded (the op records itself).
Tensor copy_of(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  copy_kernel(x.device(), x, out);
  return out;
}

Tensor zeros_of(const Shape& shape, const Tensor& like) {
  return zeros(shape, {.dtype = like.dtype(), .device = like.device()});
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  check_operands("index_select", x, index);
  HM_CHECK(index.dim() == 1, "index_select", "index must be 1-d, got {}", index.desc());
  const int64_t d = normalize_dim(dim, x.dim(), "index_select");
  Shape shape = x.shape();  // x's shape with dim replaced by the index length
  shape[d] = index.numel();
  Strides index_strides(shape.size(), 0);  // the 1-d index broadcast over the other dims
  index_strides[d] = index.strides()[0];
  Tensor idx = detail::alias(index, shape, index_strides, index.offset());
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  gather_kernel(x.device(), "index_select", x, d, idx, out);
  bool rec = autograd::will_record({x});
  return autograd::record("index_select", out, {x},
                          [d, in = x.shape(), si = rec ? Saved(index) : Saved()](const Tensor& g, const NeedsGrad&) {
                            return Grads{index_add(zeros_of(in, g), d, si.get(), g)};
                          });
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  check_operands("index_add", x, index);
  check_source("index_add", x, src);
  HM_CHECK(index.dim() == 1, "index_add", "index must be 1-d, got {}", index.desc());
  const int64_t d = normalize_dim(dim, x.dim(), "index_add");
  Shape expected = x.shape();
  expected[d] = index.numel();
  HM_CHECK(src.shape() == expected, "index_add", "src {} must have shape {} (x {} with dim {} of the index length {})",
           str(src.shape()), str(expected), str(x.shape()), d, index.numel());
  Tensor out = copy_of(x);
  index_add_kernel(x.device(), "index_add", out, d, index.contiguous(), src.contiguous());
  bool rec = autograd::will_record({x, src});
  return autograd::record("index_add", out, {x, src},
                          [d, si = rec ? Saved(index) : Saved()](const Tensor& g, const NeedsGrad& n) {
                            return Grads{n[0] ? g : Tensor(), n[1] ? index_select(g, d, si.get()) : Tensor()};
                          });
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  check_operands("gather", x, index);
  HM_CHECK(index.dim() == x.dim(), "gather", "index {} must have as many dims as x {}", str(index.shape()),
           str(x.shape()));
  const int64_t d = normalize_dim(dim, x.dim(), "gather");
  for (int64_t k = 0; k < x.dim(); ++k)
    HM_CHECK(k == d || index.shape()[k] <= x.shape()[k], "gather",
             "index {} is larger than x {} in dim {} (only dim {} may differ)", str(index.shape()), str(x.shape()), k,
             d);
  Tensor out = Tensor::empty(index.shape(), x.dtype(), x.device());
  gather_kernel(x.device(), "gather", x, d, index, out);
  bool rec = autograd::will_record({x});
  return autograd::record("gather", out, {x},
                          [d, in = x.shape(), si = rec ? Saved(index) : Saved()](const Tensor& g, const NeedsGrad&) {
                            return Grads{scatter_add(zeros_of(in, g), d, si.get(), g)};
                          });
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  check_operands("scatter_add", x, index);
  check_source("scatter_add", x, src);
  HM_CHECK(index.dim() == x.dim() && src.dim() == x.dim(), "scatter_add",
           "x {}, index {} and src {} must have the same number of dims", str(x.shape()), str(index.shape()),
           str(src.shape()));
  const int64_t d = normalize_dim(dim, x.dim(), "scatter_add");
  for (int64_t k = 0; k < x.dim(); ++k) {
    HM_CHECK(index.shape()[k] <= src.shape()[k], "scatter_add", "index {} is larger than src {} in dim {}",
             str(index.shape()), str(src.shape()), k);
    HM_CHECK(k == d || index.shape()[k] <= x.shape()[k], "scatter_add",
             "index {} is larger than x {} in dim {} (only dim {} may differ)", str(index.shape()), str(x.shape()), k,
             d);
  }
  Tensor out = copy_of(x);
  scatter_add_kernel(x.device(), "scatter_add", out, d, index, src);
  bool rec = autograd::will_record({x, src});
  return autograd::record(
      "scatter_add", out, {x, src},
      [d, src_shape = src.shape(), si = rec ? Saved(index) : Saved()](const Tensor& g, const NeedsGrad& n) {
        Tensor gs;
        if (n[1]) {
          gs = gather(g, d, si.get());  // index's shape; src elements beyond it got no gradient
          if (gs.shape() != src_shape) {
            Tensor full_grad = zeros_of(src_shape, g);
            Tensor block = full_grad;
            for (int64_t k = 0; k < gs.dim(); ++k) block = detail::slice_alias(block, k, 0, gs.shape()[k]);
            copy_kernel(g.device(), gs, block);
            gs = full_grad;
          }
        }
        return Grads{n[0] ? g : Tensor(), gs};
      });
}

Tensor one_hot(const Tensor& index, int64_t num_classes, DType dtype) {
  check(index.defined(), "one_hot", "undefined tensor");
  HM_CHECK(index.dtype() == DType::Int64, "one_hot", "input must be int64 class indices, got {}", index.desc());
  check(num_classes > 0, "one_hot", "num_classes must be positive, got {}", num_classes);
  Shape shape = index.shape();
  shape.push_back(num_classes);
  Tensor out = Tensor::empty(shape, dtype, index.device());
  one_hot_kernel(index.device(), index.contiguous(), out);
  return out;
}

}  // namespace hm
