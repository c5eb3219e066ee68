// CPU kernels of the unary family, forward and fused backward: flat loops over contiguous
// memory that GCC vectorises (float32 transcendentals come from ops/cpu/vec_math.h, so no
// libm call blocks the vectoriser), split across threads when large.
#include <type_traits>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/unary_kernels.h"

namespace hm {
namespace {

// Element operations per index, for parallel_for's run-inline threshold: a transcendental
// costs several times a load-op-store.
// clang-format off
int64_t unary_cost(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Relu:
    case UnaryOp::Clamp:
    case UnaryOp::Square:
    case UnaryOp::LogicalNot: return 1;
    default: return 4;
  }
  // clang-format on
}

// out[i] = f(x[i]) over n contiguous elements.
template <class T, class Out, class F>
void map(const T* x, Out* out, int64_t n, int64_t cost, F f) {
  parallel_for(n, cost, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) out[i] = f(x[i]);
  });
}

// f over elements of T computed in compute_t<T> (float32 for bfloat16, rounded once on the
// store; a no-op wrapper for float32/float64).
template <class T, class F>
auto computed(F f) {
  using C = compute_t<T>;
  return [f](T v) { return convert<T>(f(convert<C>(v))); };
}

// x^e for the exponents that have a cheaper exact form (as PyTorch does); false otherwise.
// clang-format off
template <class T>
bool pow_fast_path(const T* x, T* out, int64_t n, double e) {
  using C = compute_t<T>;
  auto m = [&](auto f) { map(x, out, n, 1, computed<T>(f)); };
  if (e == 2) m([](C v) { return v * v; });
  else if (e == 3) m([](C v) { return v * v * v; });
  else if (e == 1) m([](C v) { return v; });
  else if (e == 0.5) m([](C v) { return std::sqrt(v); });
  else if (e == -0.5) m([](C v) { return C(1) / std::sqrt(v); });
  else if (e == -1) m([](C v) { return C(1) / v; });
  else if (e == -2) m([](C v) { return C(1) / (v * v); });
  else return false;
  return true;
}
// clang-format on

void cpu_unary(UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p) {
  const int64_t n = x.numel();
  const int64_t cost = unary_cost(op);
  dispatch_storage(x.dtype(), unary_name(op), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    if (op == UnaryOp::LogicalNot) {
      map(px, out.data<bool>(), n, cost, [](T v) { return !convert<bool>(v); });
      return;
    }
    T* po = static_cast<T*>(out.raw_data());
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      if (op == UnaryOp::PowScalar && pow_fast_path(px, po, n, p.a)) return;
      with_unary_functor<CpuMath>(op, p, [&](auto f) { map(px, po, n, cost, computed<T>(f)); });
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (op == UnaryOp::Neg)
        map(px, po, n, cost, ufn::Neg{});
      else if (op == UnaryOp::Abs)
        map(px, po, n, cost, ufn::Abs{});
      else
        throw_error(unary_name(op), "expected a floating-point tensor, got int64");
    } else {
      throw_error(unary_name(op), "expected a floating-point tensor, got bool");
    }
  });
}

void cpu_unary_backward(UnaryOp op, const Tensor& saved, const Tensor& grad, const Tensor& grad_in, UnaryParams p) {
  const int64_t n = grad.numel();
  const int64_t cost = unary_cost(op);
  dispatch_floating(grad.dtype(), unary_name(op), [&]<class T>() {
    using C = compute_t<T>;
    const T* g = static_cast<const T*>(grad.raw_data());
    const T* s = saved.defined() ? static_cast<const T*>(saved.raw_data()) : g;  // ops that save nothing ignore s
    T* gi = static_cast<T*>(grad_in.raw_data());
    with_unary_functor<CpuMath>(op, p, [&](auto f) {
      parallel_for(n, cost, [&](int64_t begin, int64_t end) {
#pragma omp simd
        for (int64_t i = begin; i < end; ++i) gi[i] = convert<T>(f.grad(convert<C>(s[i]), convert<C>(g[i])));
      });
    });
  });
}

[[maybe_unused]] const bool unary_bound =
    (unary_kernel.cpu = cpu_unary, unary_backward_kernel.cpu = cpu_unary_backward, true);

}  // namespace
}  // namespace hm
