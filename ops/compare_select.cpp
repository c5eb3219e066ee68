// The comparisons, logical_not, where and masked_fill: forward and backward side by side.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/compare_select_kernels.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/unary_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// cond ? a : b on already expanded views (no autograd).
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = Tensor::empty(cond.shape(), a.dtype(), a.device());
  where_kernel(out.device(), cond, a, b, out);
  return out;
}

// Comparisons produce bool and are not differentiable.
Tensor compare(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name) {
  return autograd::record(name, detail::binary_forward(op, a, b, name), {}, nullptr);
}

}  // namespace

// -- comparisons ------------------------------------------------------------------------------

Tensor eq(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Eq, a, b, "eq"); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Ne, a, b, "ne"); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Lt, a, b, "lt"); }
Tensor le(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Le, a, b, "le"); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Gt, a, b, "gt"); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare(BinaryOp::Ge, a, b, "ge"); }

namespace {
// A number is compared in the promoted dtype, so arange(5) < 2.5 includes 2.
Tensor compare_scalar(BinaryOp op, const Tensor& a, const Scalar& b, std::string_view name) {
  auto [x, s] = detail::promote_with_scalar(a, b, name);
  return compare(op, x, s, name);
}
}  // namespace

Tensor eq(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Eq, a, b, "eq"); }
Tensor ne(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Ne, a, b, "ne"); }
Tensor lt(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Lt, a, b, "lt"); }
Tensor le(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Le, a, b, "le"); }
Tensor gt(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Gt, a, b, "gt"); }
Tensor ge(const Tensor& a, Scalar b) { return compare_scalar(BinaryOp::Ge, a, b, "ge"); }

// Any dtype -> bool (x == 0), like torch.logical_not.
Tensor logical_not(const Tensor& x) {
  check(x.defined(), "logical_not", "undefined tensor");
  Tensor out = Tensor::empty(x.shape(), DType::Bool, x.device());
  unary_kernel(x.device(), UnaryOp::LogicalNot, x.detach().contiguous(), out, {});
  return autograd::record("logical_not", out, {}, nullptr);
}

// -- where, masked_fill -----------------------------------------------------------------------

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check(cond.defined() && a.defined() && b.defined(), "where", "undefined operand");
  HM_CHECK(cond.dtype() == DType::Bool, "where", "condition must be bool, got {}", cond.desc());
  HM_CHECK(a.dtype() == b.dtype(), "where", "dtype mismatch: {} and {} (convert one with .to(dtype))", a.desc(),
           b.desc());
  HM_CHECK(cond.device() == a.device() && a.device() == b.device(), "where",
           "operands on different devices: {}, {}, {}", cond.desc(), a.desc(), b.desc());
  const Shape shape = broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape(), "where"), "where");
  Tensor out = select(detail::expand_to(cond, shape), detail::expand_to(a, shape), detail::expand_to(b, shape));
  if (!autograd::will_record({a, b})) return autograd::record("where", out, {a, b}, nullptr);
  return autograd::record("where", out, {a, b},
                          [sc = Saved(cond), sa = a.shape(), sb = b.shape()](const Tensor& g, const NeedsGrad& n) {
                            Tensor c = detail::expand_to(sc.get(), g.shape());
                            Tensor zero = detail::expand_to(detail::scalar_like(g, 0.0), g.shape());
                            return Grads{n[0] ? sum_to(select(c, g, zero), sa) : Tensor(),
                                         n[1] ? sum_to(select(c, zero, g), sb) : Tensor()};
                          });
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check(x.defined() && mask.defined(), "masked_fill", "undefined operand");
  HM_CHECK(mask.dtype() == DType::Bool, "masked_fill", "mask must be bool, got {}", mask.desc());
  HM_CHECK(mask.device() == x.device(), "masked_fill", "operands on different devices: {} and {}", x.desc(),
           mask.desc());
  HM_CHECK(broadcast_shapes(x.shape(), mask.shape(), "masked_fill") == x.shape(), "masked_fill",
           "mask {} does not broadcast to x {}", str(mask.shape()), str(x.shape()));
  Tensor m = detail::expand_to(mask, x.shape());
  Tensor out = select(m, detail::expand_to(detail::scalar_like(x, value), x.shape()), x);
  if (!autograd::will_record({x})) return autograd::record("masked_fill", out, {x}, nullptr);
  return autograd::record("masked_fill", out, {x}, [sm = Saved(mask)](const Tensor& g, const NeedsGrad&) {
    Tensor zero = detail::expand_to(detail::scalar_like(g, 0.0), g.shape());
    return Grads{select(detail::expand_to(sm.get(), g.shape()), zero, g)};
  });
}

}  // namespace hm
