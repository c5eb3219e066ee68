// Scalar derivatives of the differentiable binary ops that need more than a product with
// the gradient (pow, maximum, minimum), shared by every backend like ops/binary_functors.h.
// Each functor maps (a, b, g) at one broadcast position to the two input gradients;
// formulas follow PyTorch's derivatives.yaml.
#pragma once
#include <cmath>

#include "harmonic/core/host_device.h"
#include "harmonic/ops/binary_functors.h"

namespace hm {
// clang-format off
namespace gfn {
// d/da a^b = b a^(b-1) (0 where b == 0); d/db a^b = a^b log a (0 where a == 0 and b >= 0,
// NaN for a < 0 like PyTorch).
struct Pow {
  template <class T> HM_HD void operator()(T a, T b, T g, T& ga, T& gb) const {
    ga = b == T(0) ? T(0) : g * b * std::pow(a, b - T(1));
    gb = a == T(0) && b >= T(0) ? T(0) : g * std::pow(a, b) * std::log(a);
  }
};
// Ties split the gradient in half between a and b.
struct Maximum {
  template <class T> HM_HD void operator()(T a, T b, T g, T& ga, T& gb) const {
    const T half = g * T(0.5);
    ga = a == b ? half : (a < b ? T(0) : g);
    gb = a == b ? half : (a > b ? T(0) : g);
  }
};
struct Minimum {
  template <class T> HM_HD void operator()(T a, T b, T g, T& ga, T& gb) const {
    const T half = g * T(0.5);
    ga = a == b ? half : (a > b ? T(0) : g);
    gb = a == b ? half : (a < b ? T(0) : g);
  }
};
}  // namespace gfn
// clang-format on

// True for the ops with_binary_grad_functor knows.
constexpr bool has_binary_grad_functor(BinaryOp op) {
  return op == BinaryOp::Pow || op == BinaryOp::Maximum || op == BinaryOp::Minimum;
}

// clang-format off
template <class F>
decltype(auto) with_binary_grad_functor(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::Maximum: return f(gfn::Maximum{});
    case BinaryOp::Minimum: return f(gfn::Minimum{});
    default: return f(gfn::Pow{});
  }
  // clang-format on
}

}  // namespace hm
