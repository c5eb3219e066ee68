// Scalar functors of the binary elementwise ops. One definition serves the CPU loop and the
// CUDA kernel (HM_HD), so the two backends cannot disagree on the math.
#pragma once
#include <cmath>
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm {

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Pow, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge };

constexpr bool is_comparison(BinaryOp op) { return op >= BinaryOp::Eq; }

namespace fn {
struct Add { template <class T> HM_HD T operator()(T a, T b) const { return a + b; } };
struct Sub { template <class T> HM_HD T operator()(T a, T b) const { return a - b; } };
struct Mul { template <class T> HM_HD T operator()(T a, T b) const { return a * b; } };
struct Div { template <class T> HM_HD T operator()(T a, T b) const { return a / b; } };
struct Pow {
  template <class T> HM_HD T operator()(T a, T b) const {
    return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
  HM_HD float operator()(float a, float b) const { return std::pow(a, b); }
};
// NaN propagates like torch.maximum/minimum.
struct Maximum { template <class T> HM_HD T operator()(T a, T b) const { return a != a ? a : (b != b ? b : (a > b ? a : b)); } };
struct Minimum { template <class T> HM_HD T operator()(T a, T b) const { return a != a ? a : (b != b ? b : (a < b ? a : b)); } };
struct Eq { template <class T> HM_HD bool operator()(T a, T b) const { return a == b; } };
struct Ne { template <class T> HM_HD bool operator()(T a, T b) const { return a != b; } };
struct Lt { template <class T> HM_HD bool operator()(T a, T b) const { return a < b; } };
struct Le { template <class T> HM_HD bool operator()(T a, T b) const { return a <= b; } };
struct Gt { template <class T> HM_HD bool operator()(T a, T b) const { return a > b; } };
struct Ge { template <class T> HM_HD bool operator()(T a, T b) const { return a >= b; } };
}  // namespace fn

// Calls f(functor) for a run-time BinaryOp (used by every backend's binary kernel).
template <class F>
decltype(auto) with_binary_functor(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::Add: return f(fn::Add{});
    case BinaryOp::Sub: return f(fn::Sub{});
    case BinaryOp::Mul: return f(fn::Mul{});
    case BinaryOp::Div: return f(fn::Div{});
    case BinaryOp::Pow: return f(fn::Pow{});
    case BinaryOp::Maximum: return f(fn::Maximum{});
    case BinaryOp::Minimum: return f(fn::Minimum{});
    case BinaryOp::Eq: return f(fn::Eq{});
    case BinaryOp::Ne: return f(fn::Ne{});
    case BinaryOp::Lt: return f(fn::Lt{});
    case BinaryOp::Le: return f(fn::Le{});
    case BinaryOp::Gt: return f(fn::Gt{});
    case BinaryOp::Ge: return f(fn::Ge{});
  }
  return f(fn::Add{});
}

}  // namespace hm
