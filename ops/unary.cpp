// The unary elementwise ops. Each op's forward formula and derivative sit side by side in
// its functor (ops/unary_functors.h); this file checks inputs, runs the forward kernel and
// records a backward that is one fused kernel pass over (saved, grad).
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/unary_kernels.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// grad_in = op'(x) * g.
Tensor unary_backward(UnaryOp op, const Tensor& saved, const Tensor& g, UnaryParams p) {
  Tensor gc = g.contiguous();
  Tensor grad_in = Tensor::empty(g.shape(), g.dtype(), g.device());
  unary_backward_kernel(g.device(), op, saved, gc, grad_in, p);
  return grad_in;
}

// y = op(x) for any layout of x (float; int64 too when allow_int64), recorded with a fused backward.
Tensor unary(UnaryOp op, const Tensor& x, UnaryParams p = {}, bool allow_int64 = false) {
  const std::string_view name = unary_name(op);
  check(x.defined(), name, "undefined tensor");
  HM_CHECK(is_floating(x.dtype()) || (allow_int64 && x.dtype() == DType::Int64), name,
           "expected a floating-point{} tensor, got {}", allow_int64 ? " or int64" : "", x.desc());
  Tensor xc = x.detach().contiguous();  // the kernel wants contiguous memory; no tape entry for the copy
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  unary_kernel(x.device(), op, xc, out, p);
  if (!autograd::will_record({x})) return autograd::record(name, out, {x}, nullptr);
  const UnarySaves saves = unary_saves(op);
  Saved saved = saves == UnarySaves::Input ? Saved(xc) : saves == UnarySaves::Output ? Saved(out) : Saved();
  return autograd::record(name, out, {x}, [op, p, saved](const Tensor& g, const NeedsGrad&) {
    return Grads{unary_backward(op, saved.get(), g, p)};
  });
}

}  // namespace

Tensor neg(const Tensor& x) { return unary(UnaryOp::Neg, x, {}, true); }
Tensor abs(const Tensor& x) { return unary(UnaryOp::Abs, x, {}, true); }
Tensor exp(const Tensor& x) { return unary(UnaryOp::Exp, x); }
Tensor log(const Tensor& x) { return unary(UnaryOp::Log, x); }
Tensor log1p(const Tensor& x) { return unary(UnaryOp::Log1p, x); }
Tensor sqrt(const Tensor& x) { return unary(UnaryOp::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary(UnaryOp::Rsqrt, x); }
Tensor sin(const Tensor& x) { return unary(UnaryOp::Sin, x); }
Tensor cos(const Tensor& x) { return unary(UnaryOp::Cos, x); }
Tensor tanh(const Tensor& x) { return unary(UnaryOp::Tanh, x); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::Sigmoid, x); }
Tensor relu(const Tensor& x) { return unary(UnaryOp::Relu, x); }
Tensor silu(const Tensor& x) { return unary(UnaryOp::Silu, x); }
Tensor square(const Tensor& x) { return unary(UnaryOp::Square, x); }

Tensor gelu(const Tensor& x, GeluApprox approx) {
  return unary(approx == GeluApprox::Tanh ? UnaryOp::GeluTanh : UnaryOp::GeluErf, x);
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  check(beta != 0, "softplus", "beta must be nonzero");
  return unary(UnaryOp::Softplus, x, {beta, threshold});
}

// Like torch.clamp: lo > hi gives hi everywhere (and zero gradient).
Tensor clamp(const Tensor& x, double lo, double hi) {
  check(!std::isnan(lo) && !std::isnan(hi), "clamp", "bounds must not be NaN, got [{}, {}]", lo, hi);
  return unary(UnaryOp::Clamp, x, {lo, hi});
}

Tensor pow(const Tensor& x, double exponent) { return unary(UnaryOp::PowScalar, x, {exponent, 0}); }

}  // namespace hm
