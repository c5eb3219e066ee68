// pow(tensor, tensor), maximum/minimum, the comparisons, logical_not, where, masked_fill
// and the in-place optimizer updates add_/mul_. Forward and backward side by side; the
// per-element derivatives of pow/maximum/minimum live in ops/binary_grad_functors.h.
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/factories.h"
#include "ops/elementwise.h"
#include "ops/elementwise_common.h"
#include "ops/reduce.h"
#include "ops/unary_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// t read as `shape` (0 strides on broadcast dims), no autograd.
Tensor expand_to(const Tensor& t, const Shape& shape) {
  return Tensor::view_of(t.storage(), shape, broadcast_strides(t.shape(), t.strides(), shape), t.offset(), t.dtype());
}

// cond ? a : b on already expanded views (no autograd).
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor out = Tensor::empty(cond.shape(), a.dtype(), a.device());
  where_kernel(out.device(), cond, a, b, out);
  return out;
}

// pow/maximum/minimum: the binary kernel forward; backward is one fused pass producing both
// per-element gradients at the broadcast shape, then summed back to each input's shape.
Tensor binary_with_grad(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name) {
  Tensor out = detail::binary_forward(op, a, b, name);
  if (!autograd::will_record({a, b})) return autograd::record(name, out, {a, b}, nullptr);
  return autograd::record(name, out, {a, b}, [op, sa = Saved(a), sb = Saved(b)](const Tensor& g, const NeedsGrad& n) {
    const Tensor& av = sa.get();
    const Tensor& bv = sb.get();
    const Shape& shape = g.shape();
    Tensor ga = n[0] ? Tensor::empty(shape, g.dtype(), g.device()) : Tensor();
    Tensor gb = n[1] ? Tensor::empty(shape, g.dtype(), g.device()) : Tensor();
    binary_backward_kernel(g.device(), op, expand_to(av, shape), expand_to(bv, shape), g, ga, gb);
    return Grads{n[0] ? sum_to(ga, av.shape()) : Tensor(), n[1] ? sum_to(gb, bv.shape()) : Tensor()};
  });
}

// Comparisons produce bool and are not differentiable.
Tensor compare(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name) {
  return autograd::record(name, detail::binary_forward(op, a, b, name), {}, nullptr);
}

// The same check as Tensor::fill_/copy_, plus no writes through broadcast (0-stride) views.
void check_inplace(const Tensor& x, std::string_view fn) {
  check(x.defined(), fn, "undefined tensor");
  HM_CHECK(!(grad_enabled() && x.requires_grad()), fn,
           "in-place write to {} which requires grad; wrap it in NoGradGuard (as optimizers do) or detach() first",
           x.desc());
  for (int64_t d = 0; d < x.dim(); ++d)
    HM_CHECK(x.strides()[d] != 0 || x.shape()[d] <= 1, fn, "cannot write in place to a broadcast view {}", x.desc());
  HM_CHECK(x.dtype() != DType::Bool, fn, "arithmetic on a bool tensor {}", x.desc());
}

}  // namespace

// -- pow, maximum, minimum ---------------------------------------------------------------------

Tensor pow(const Tensor& a, const Tensor& b) {
  detail::check_floating(a, "pow");
  return binary_with_grad(BinaryOp::Pow, a, b, "pow");
}
Tensor maximum(const Tensor& a, const Tensor& b) { return binary_with_grad(BinaryOp::Maximum, a, b, "maximum"); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary_with_grad(BinaryOp::Minimum, a, b, "minimum"); }

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
  Tensor out = select(expand_to(cond, shape), expand_to(a, shape), expand_to(b, shape));
  if (!autograd::will_record({a, b})) return autograd::record("where", out, {a, b}, nullptr);
  return autograd::record("where", out, {a, b},
                          [sc = Saved(cond), sa = a.shape(), sb = b.shape()](const Tensor& g, const NeedsGrad& n) {
                            Tensor c = expand_to(sc.get(), g.shape());
                            Tensor zero = expand_to(detail::scalar_like(g, 0.0), g.shape());
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
  Tensor m = expand_to(mask, x.shape());
  Tensor out = select(m, expand_to(detail::scalar_like(x, value), x.shape()), x);
  if (!autograd::will_record({x})) return autograd::record("masked_fill", out, {x}, nullptr);
  return autograd::record("masked_fill", out, {x}, [sm = Saved(mask)](const Tensor& g, const NeedsGrad&) {
    Tensor zero = expand_to(detail::scalar_like(g, 0.0), g.shape());
    return Grads{select(expand_to(sm.get(), g.shape()), zero, g)};
  });
}

// -- in-place updates -------------------------------------------------------------------------

void add_(Tensor& x, const Tensor& y, double alpha) {
  check_inplace(x, "add_");
  check(y.defined(), "add_", "undefined operand");
  HM_CHECK(x.dtype() == y.dtype(), "add_", "dtype mismatch: {} and {}", x.desc(), y.desc());
  HM_CHECK(x.device() == y.device(), "add_", "operands on different devices: {} and {}", x.desc(), y.desc());
  HM_CHECK(broadcast_shapes(x.shape(), y.shape(), "add_") == x.shape(), "add_", "cannot add {} into {} in place",
           str(y.shape()), str(x.shape()));
  add_inplace_kernel(x.device(), x, expand_to(y, x.shape()), alpha);
  x.bump_version();
}

void mul_(Tensor& x, double s) {
  check_inplace(x, "mul_");
  mul_inplace_kernel(x.device(), x, s);
  x.bump_version();
}

}  // namespace hm
