// add, sub, mul, div and their scalar forms, pow(tensor, tensor), maximum/minimum and the in-place
// optimizer updates add_/mul_: forward and backward side by side. The per-element derivatives
// of pow/maximum/minimum live in ops/binary_grad_functors.h.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/binary_kernels.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/reduce.h"

namespace hm {
namespace detail {

void check_floating(const Tensor& x, std::string_view name) {
  check(x.defined(), name, "undefined tensor");
  HM_CHECK(is_floating(x.dtype()), name, "expected a floating-point tensor, got {}", x.desc());
}

// t read as `shape` (0 strides on broadcast dims), no autograd.
Tensor expand_to(const Tensor& t, const Shape& shape) {
  return Tensor::view_of(t.storage(), shape, broadcast_strides(t.shape(), t.strides(), shape), t.offset(), t.dtype());
}

Tensor contiguous_nograd(const Tensor& t) {
  NoGradGuard guard;
  return t.defined() ? t.contiguous() : t;
}

Tensor scalar_like(const Tensor& x, double value) {
  check(x.defined(), "scalar", "undefined tensor");
  return full({}, value, {.dtype = x.dtype(), .device = x.device()});
}

DType scalar_result_dtype(DType x, const Scalar& s, bool true_division) {
  if (is_floating(x)) return x;
  if (s.kind == Scalar::Kind::Float || true_division) return DType::Float32;  // torch's default dtype
  if (x == DType::Bool && s.kind == Scalar::Kind::Int) return DType::Int64;
  return x;
}

std::pair<Tensor, Tensor> promote_with_scalar(const Tensor& x, const Scalar& s, std::string_view name,
                                              bool true_division) {
  check(x.defined(), name, "undefined tensor");
  const DType dt = scalar_result_dtype(x.dtype(), s, true_division);
  Tensor xp = x.dtype() == dt ? x : x.to(dt);
  return {xp, full({}, s.value, {.dtype = dt, .device = x.device()})};
}

Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name) {
  check(a.defined() && b.defined(), name, "undefined operand");
  HM_CHECK(a.device() == b.device(), name, "operands on different devices: {} and {}", a.desc(), b.desc());
  HM_CHECK(a.dtype() == b.dtype() || mixes_bf16_and_float32(a.dtype(), b.dtype()), name,
           "dtype mismatch: {} and {} (convert one with .to(dtype))", a.desc(), b.desc());
  Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor ea = Tensor::view_of(a.storage(), shape, broadcast_strides(a.shape(), a.strides(), shape), a.offset(),
                              a.dtype());
  Tensor eb = Tensor::view_of(b.storage(), shape, broadcast_strides(b.shape(), b.strides(), shape), b.offset(),
                              b.dtype());
  const DType result = a.dtype() == b.dtype() ? a.dtype() : DType::Float32;
  Tensor out = Tensor::empty(shape, is_comparison(op) ? DType::Bool : result, a.device());
  binary_kernel(a.device(), op, ea, eb, out);
  return out;
}

}  // namespace detail

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = detail::binary_forward(BinaryOp::Add, a, b, "add");
  return autograd::record("add", out, {a, b}, [sa = a.shape(), sb = b.shape()](const Tensor& g, const NeedsGrad& n) {
    return Grads{n[0] ? sum_to(g, sa) : Tensor(), n[1] ? sum_to(g, sb) : Tensor()};
  });
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Tensor out = detail::binary_forward(BinaryOp::Sub, a, b, "sub");
  return autograd::record("sub", out, {a, b}, [sa = a.shape(), sb = b.shape()](const Tensor& g, const NeedsGrad& n) {
    return Grads{n[0] ? sum_to(g, sa) : Tensor(), n[1] ? sum_to(neg(g), sb) : Tensor()};
  });
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = detail::binary_forward(BinaryOp::Mul, a, b, "mul");
  bool rec = autograd::will_record({a, b});
  return autograd::record("mul", out, {a, b},
                          [sa = rec ? Saved(a) : Saved(), sb = rec ? Saved(b) : Saved()](const Tensor& g,
                                                                                        const NeedsGrad& n) {
                            const Tensor& av = sa.get();
                            const Tensor& bv = sb.get();
                            return Grads{n[0] ? sum_to(mul(g, bv), av.shape()) : Tensor(),
                                         n[1] ? sum_to(mul(g, av), bv.shape()) : Tensor()};
                          });
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = detail::binary_forward(BinaryOp::Div, a, b, "div");
  bool rec = autograd::will_record({a, b});
  return autograd::record("div", out, {a, b},
                          [sa = rec ? Saved(a) : Saved(), sb = rec ? Saved(b) : Saved()](const Tensor& g,
                                                                                        const NeedsGrad& n) {
                            const Tensor& av = sa.get();
                            const Tensor& bv = sb.get();
                            Tensor ga, gb;
                            if (n[0]) ga = sum_to(div(g, bv), av.shape());
                            if (n[1]) gb = sum_to(neg(div(mul(g, av), mul(bv, bv))), bv.shape());  // -g a / b^2
                            return Grads{ga, gb};
                          });
}

namespace {

// a and b promoted together; bool with a bool number has no arithmetic here (PyTorch's
// logical-or/and meaning of + and * on bools is left out on purpose).
std::pair<Tensor, Tensor> arithmetic_operands(const Tensor& a, const Scalar& b, std::string_view name,
                                              bool true_division = false) {
  auto operands = detail::promote_with_scalar(a, b, name, true_division);
  HM_CHECK(operands.first.dtype() != DType::Bool, name,
           "arithmetic on bool tensor {} with a bool number; convert one with .to(DType::Int64)", a.desc());
  return operands;
}

}  // namespace

Tensor add(const Tensor& a, Scalar b) {
  auto [x, s] = arithmetic_operands(a, b, "add");
  return add(x, s);
}
Tensor sub(const Tensor& a, Scalar b) {
  auto [x, s] = arithmetic_operands(a, b, "sub");
  return sub(x, s);
}
Tensor mul(const Tensor& a, Scalar b) {
  auto [x, s] = arithmetic_operands(a, b, "mul");
  return mul(x, s);
}
Tensor div(const Tensor& a, Scalar b) {
  auto [x, s] = arithmetic_operands(a, b, "div", /*true_division=*/true);
  return div(x, s);
}
Tensor rsub(const Tensor& a, Scalar b) {
  auto [x, s] = arithmetic_operands(a, b, "rsub");
  return sub(s, x);
}

namespace {

// pow/maximum/minimum: the binary kernel forward; backward is one fused pass producing both
// per-element gradients at the broadcast shape, then summed back to each input's shape.
Tensor binary_with_grad(BinaryOp op, const Tensor& a, const Tensor& b, std::string_view name) {
  Tensor out = detail::binary_forward(op, a, b, name);
  if (!autograd::will_record({a, b})) return autograd::record(name, out, {a, b}, nullptr);
  return autograd::record(name, out, {a, b}, [op, sa = Saved(a), sb = Saved(b)](const Tensor& g, const NeedsGrad& n) {
    // A bfloat16 operand beside a float32 one is read as float32 here (the engine rounds its
    // gradient back to bfloat16).
    const Tensor av = sa.get().dtype() == g.dtype() ? sa.get() : sa.get().to(g.dtype());
    const Tensor bv = sb.get().dtype() == g.dtype() ? sb.get() : sb.get().to(g.dtype());
    const Shape& shape = g.shape();
    Tensor ga = n[0] ? Tensor::empty(shape, g.dtype(), g.device()) : Tensor();
    Tensor gb = n[1] ? Tensor::empty(shape, g.dtype(), g.device()) : Tensor();
    binary_backward_kernel(g.device(), op, detail::expand_to(av, shape), detail::expand_to(bv, shape), g, ga, gb);
    return Grads{n[0] ? sum_to(ga, av.shape()) : Tensor(), n[1] ? sum_to(gb, bv.shape()) : Tensor()};
  });
}

// The same check as Tensor::fill_/copy_, plus no writes through broadcast (0-stride) views.
void check_arithmetic_inplace(const Tensor& x, std::string_view fn) {
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

// -- in-place updates -------------------------------------------------------------------------

void add_(Tensor& x, const Tensor& y, double alpha) {
  check_arithmetic_inplace(x, "add_");
  check(y.defined(), "add_", "undefined operand");
  HM_CHECK(x.dtype() == y.dtype(), "add_", "dtype mismatch: {} and {}", x.desc(), y.desc());
  HM_CHECK(x.device() == y.device(), "add_", "operands on different devices: {} and {}", x.desc(), y.desc());
  HM_CHECK(broadcast_shapes(x.shape(), y.shape(), "add_") == x.shape(), "add_", "cannot add {} into {} in place",
           str(y.shape()), str(x.shape()));
  add_inplace_kernel(x.device(), x, detail::expand_to(y, x.shape()), alpha);
  x.bump_version();
}

void mul_(Tensor& x, double s) {
  check_arithmetic_inplace(x, "mul_");
  mul_inplace_kernel(x.device(), x, s);
  x.bump_version();
}

}  // namespace hm
