// Scalar functors of the unary elementwise ops, forward and derivative side by side. One
// definition serves every backend (HM_HD); a backend supplies only its math policy M, the
// exp/log/tanh/erf/ndtr/... it wants (CpuMath in ops/cpu/vec_math.h vectorises float32; StdMath
// below is plain <cmath>, usable by nvcc). Formulas follow PyTorch's definitions.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

#include "harmonic/core/host_device.h"

namespace hm {

// clang-format off
enum class UnaryOp : uint8_t {
  Neg, Exp, Log, Log1p, Sqrt, Rsqrt, Abs, Sin, Cos, Tanh, Sigmoid, Relu,
  GeluErf, GeluTanh, Silu, Softplus, Clamp, Square, PowScalar, LogicalNot
};
// clang-format on

// The op's scalar parameters: Clamp (lo, hi), Softplus (beta, threshold), PowScalar (exponent).
struct UnaryParams {
  double a = 0, b = 0;
};

// What the backward kernel reads besides the incoming gradient: the op's input x or its
// output y (saving y lets exp/tanh/sigmoid skip recomputing the transcendental).
enum class UnarySaves : uint8_t { Nothing, Input, Output };

// clang-format off
constexpr UnarySaves unary_saves(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::LogicalNot: return UnarySaves::Nothing;
    case UnaryOp::Exp:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Relu: return UnarySaves::Output;
    default: return UnarySaves::Input;
  }
}
// clang-format on

constexpr std::string_view unary_name(UnaryOp op) {
  constexpr std::string_view names[] = {"neg",  "exp",      "log",   "log1p",   "sqrt", "rsqrt",      "abs",
                                        "sin",  "cos",      "tanh",  "sigmoid", "relu", "gelu",       "gelu",
                                        "silu", "softplus", "clamp", "square",  "pow",  "logical_not"};
  return names[static_cast<int>(op)];
}

// clang-format off
// <cmath> for every type.
struct StdMath {
  template <class T> HM_HD static T exp(T x) { return std::exp(x); }
  template <class T> HM_HD static T log(T x) { return std::log(x); }
  template <class T> HM_HD static T log1p(T x) { return std::log1p(x); }
  template <class T> HM_HD static T tanh(T x) { return std::tanh(x); }
  template <class T> HM_HD static T erf(T x) { return std::erf(x); }
  // The standard normal CDF, PyTorch's gelu form.
  template <class T> HM_HD static T ndtr(T x) { return T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440))); }
  template <class T> HM_HD static T sqrt(T x) { return std::sqrt(x); }
  template <class T> HM_HD static T sin(T x) { return std::sin(x); }
  template <class T> HM_HD static T cos(T x) { return std::cos(x); }
  template <class T> HM_HD static T pow(T x, T y) { return std::pow(x, y); }
};

// Each functor: y = f(x) as operator(), and grad(s, g) = f'(x) g where s is x or y as
// unary_saves says.
namespace ufn {
struct Neg {
  template <class T> HM_HD T operator()(T x) const { return -x; }
  template <class T> HM_HD T grad(T, T g) const { return -g; }
};
template <class M> struct Exp {
  template <class T> HM_HD T operator()(T x) const { return M::exp(x); }
  template <class T> HM_HD T grad(T y, T g) const { return g * y; }
};
template <class M> struct Log {
  template <class T> HM_HD T operator()(T x) const { return M::log(x); }
  template <class T> HM_HD T grad(T x, T g) const { return g / x; }
};
template <class M> struct Log1p {
  template <class T> HM_HD T operator()(T x) const { return M::log1p(x); }
  template <class T> HM_HD T grad(T x, T g) const { return g / (x + T(1)); }
};
template <class M> struct Sqrt {
  template <class T> HM_HD T operator()(T x) const { return M::sqrt(x); }
  template <class T> HM_HD T grad(T y, T g) const { return g / (T(2) * y); }
};
template <class M> struct Rsqrt {
  template <class T> HM_HD T operator()(T x) const { return T(1) / M::sqrt(x); }
  template <class T> HM_HD T grad(T y, T g) const { return T(-0.5) * g * y * y * y; }
};
struct Abs {  // |-0| = +0; NaN stays NaN; also int64
  template <class T> HM_HD T operator()(T x) const { return x < T(0) ? -x : (x == T(0) ? T(0) : x); }
  template <class T> HM_HD T grad(T x, T g) const { return x > T(0) ? g : (x < T(0) ? -g : T(0)); }
};
template <class M> struct Sin {
  template <class T> HM_HD T operator()(T x) const { return M::sin(x); }
  template <class T> HM_HD T grad(T x, T g) const { return g * M::cos(x); }
};
template <class M> struct Cos {
  template <class T> HM_HD T operator()(T x) const { return M::cos(x); }
  template <class T> HM_HD T grad(T x, T g) const { return -g * M::sin(x); }
};
template <class M> struct Tanh {
  template <class T> HM_HD T operator()(T x) const { return M::tanh(x); }
  template <class T> HM_HD T grad(T y, T g) const { return g * (T(1) - y * y); }
};
template <class M> struct Sigmoid {
  template <class T> HM_HD T operator()(T x) const { return T(1) / (T(1) + M::exp(-x)); }
  template <class T> HM_HD T grad(T y, T g) const { return g * (T(1) - y) * y; }
};
struct Relu {  // NaN passes through like torch.relu, and so does the gradient at NaN (y <= 0 is false)
  template <class T> HM_HD T operator()(T x) const { return x < T(0) ? T(0) : x; }
  template <class T> HM_HD T grad(T y, T g) const { return y <= T(0) ? T(0) : g; }
};
// x Phi(x) with Phi(x) = (1 + erf(x / sqrt 2)) / 2; derivative Phi(x) + x phi(x).
template <class M> struct GeluErf {
  template <class T> HM_HD T operator()(T x) const { return x * M::ndtr(x); }
  template <class T> HM_HD T grad(T x, T g) const {
    const T cdf = M::ndtr(x);
    const T pdf = M::exp(T(-0.5) * x * x) * T(0.39894228040143267794);  // 1/sqrt(2 pi)
    return g * (cdf + x * pdf);
  }
};
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <class M> struct GeluTanh {
  template <class T> HM_HD T operator()(T x) const {
    const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + M::tanh(inner));
  }
  template <class T> HM_HD T grad(T x, T g) const {
    const T k_beta = T(0.79788456080286535588), k_kappa = T(0.044715);
    const T x_sq = x * x;
    const T th = M::tanh(k_beta * (x + k_kappa * x_sq * x));
    const T left_derivative = T(0.5) * (T(1) + th);
    const T right_derivative = T(0.5) * x * (T(1) - th * th) * k_beta * (T(1) + T(3) * k_kappa * x_sq);
    return g * (left_derivative + right_derivative);
  }
};
template <class M> struct Silu {
  template <class T> HM_HD T operator()(T x) const { return x / (T(1) + M::exp(-x)); }
  template <class T> HM_HD T grad(T x, T g) const {
    const T s = T(1) / (T(1) + M::exp(-x));
    return g * s * (T(1) + x * (T(1) - s));
  }
};
// log(1 + e^{beta x}) / beta, linear where beta x > threshold.
template <class M> struct Softplus {
  double beta, threshold;
  template <class T> HM_HD T operator()(T x) const {
    const T bx = x * T(beta);
    return bx > T(threshold) ? x : M::log1p(M::exp(bx)) / T(beta);
  }
  template <class T> HM_HD T grad(T x, T g) const {
    const T bx = x * T(beta);
    const T z = M::exp(bx);
    return bx > T(threshold) ? g : g * z / (z + T(1));
  }
};
struct Clamp {  // NaN passes through; gradient flows where lo < x < hi (0 on a bound, as PyTorch 2.x)
  double lo, hi;
  template <class T> HM_HD T operator()(T x) const {
    const T l = static_cast<T>(lo), h = static_cast<T>(hi);
    const T y = x < l ? l : x;
    return y > h ? h : y;
  }
  template <class T> HM_HD T grad(T x, T g) const {
    return x > static_cast<T>(lo) && x < static_cast<T>(hi) ? g : T(0);
  }
};
struct Square {
  template <class T> HM_HD T operator()(T x) const { return x * x; }
  template <class T> HM_HD T grad(T x, T g) const { return T(2) * x * g; }
};
template <class M> struct PowScalar {  // d/dx x^e = e x^(e-1), and exactly 0 when e == 0
  double e;
  template <class T> HM_HD T operator()(T x) const { return M::pow(x, T(e)); }
  template <class T> HM_HD T grad(T x, T g) const { return e == 0 ? T(0) : g * T(e) * M::pow(x, T(e - 1)); }
};
}  // namespace ufn
// clang-format on

// Calls f(functor) for a run-time differentiable/float UnaryOp (LogicalNot has no functor
// here: it maps any dtype to bool, so kernels handle it directly).
// clang-format off
template <class M, class F>
decltype(auto) with_unary_functor(UnaryOp op, UnaryParams p, F&& f) {
  switch (op) {
    case UnaryOp::Neg: return f(ufn::Neg{});
    case UnaryOp::Exp: return f(ufn::Exp<M>{});
    case UnaryOp::Log: return f(ufn::Log<M>{});
    case UnaryOp::Log1p: return f(ufn::Log1p<M>{});
    case UnaryOp::Sqrt: return f(ufn::Sqrt<M>{});
    case UnaryOp::Rsqrt: return f(ufn::Rsqrt<M>{});
    case UnaryOp::Abs: return f(ufn::Abs{});
    case UnaryOp::Sin: return f(ufn::Sin<M>{});
    case UnaryOp::Cos: return f(ufn::Cos<M>{});
    case UnaryOp::Tanh: return f(ufn::Tanh<M>{});
    case UnaryOp::Sigmoid: return f(ufn::Sigmoid<M>{});
    case UnaryOp::Relu: return f(ufn::Relu{});
    case UnaryOp::GeluErf: return f(ufn::GeluErf<M>{});
    case UnaryOp::GeluTanh: return f(ufn::GeluTanh<M>{});
    case UnaryOp::Silu: return f(ufn::Silu<M>{});
    case UnaryOp::Softplus: return f(ufn::Softplus<M>{p.a, p.b});
    case UnaryOp::Clamp: return f(ufn::Clamp{p.a, p.b});
    case UnaryOp::Square: return f(ufn::Square{});
    case UnaryOp::PowScalar: return f(ufn::PowScalar<M>{p.a});
    case UnaryOp::LogicalNot: break;  // handled by the kernels before they get here
  }
  return f(ufn::Neg{});
}
// clang-format on

}  // namespace hm
