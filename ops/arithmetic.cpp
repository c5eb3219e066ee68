// add, sub, mul, div and their scalar forms: forward and backward side by side.
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/factories.h"
#include "ops/elementwise.h"
#include "ops/elementwise_common.h"
#include "ops/reduce.h"

namespace hm {
namespace detail {

void check_floating(const Tensor& x, std::string_view name) {
  check(x.defined(), name, "undefined tensor");
  HM_CHECK(is_floating(x.dtype()), name, "expected a floating-point tensor, got {}", x.desc());
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
  HM_CHECK(a.dtype() == b.dtype(), name, "dtype mismatch: {} and {} (convert one with .to(dtype))", a.desc(), b.desc());
  Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor ea = Tensor::view_of(a.storage(), shape, broadcast_strides(a.shape(), a.strides(), shape), a.offset(),
                              a.dtype());
  Tensor eb = Tensor::view_of(b.storage(), shape, broadcast_strides(b.shape(), b.strides(), shape), b.offset(),
                              b.dtype());
  Tensor out = Tensor::empty(shape, is_comparison(op) ? DType::Bool : a.dtype(), a.device());
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

}  // namespace hm
