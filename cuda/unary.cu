// CUDA kernels of the unary ops and their fused backward (ops/unary_kernels.h). The scalar math
// is the CPU's own functors (ops/unary_functors.h) with the CudaMath policy, so the two backends
// share formulas, edge cases and PyTorch conventions; only the libm underneath differs.
#include <type_traits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/unary_kernels.h"

namespace hm::cuda {
namespace {

// -- unary forward / backward (contiguous operands) --------------------------------------------

template <class T, class Out, class F>
struct MapK {
  F f;
  const T* x;
  Out* out;
  HM_HD void operator()(int64_t i) const { out[i] = f(x[i]); }
};

// f over elements of T computed in compute_t<T> (float32 for bfloat16, rounded once on the store).
template <class T, class F>
struct Computed {
  F f;
  HM_HD T operator()(T v) const { return convert<T>(f(convert<compute_t<T>>(v))); }
};

struct LogicalNotF {
  template <class T>
  HM_HD bool operator()(T v) const {
    return !convert<bool>(v);
  }
};

// x^e with the CPU kernel's special cases (ops/cpu/unary.cpp pow_fast_path): the exact forms
// PyTorch uses too, and they differ from pow() at the edges (sqrt(-inf) is NaN, pow is inf).
struct PowScalarF {
  int kind;  // 0: x^2, 1: x^3, 2: x, 3: sqrt, 4: rsqrt, 5: 1/x, 6: 1/x^2, else pow
  double e;
  template <class T>
  HM_HD T operator()(T v) const {
    switch (kind) {
      case 0:
        return v * v;
      case 1:
        return v * v * v;
      case 2:
        return v;
      case 3:
        return CudaMath::sqrt(v);
      case 4:
        return T(1) / CudaMath::sqrt(v);
      case 5:
        return T(1) / v;
      case 6:
        return T(1) / (v * v);
      default:
        return CudaMath::pow(v, T(e));
    }
  }
};

int pow_kind(double e) {
  const double special[] = {2, 3, 1, 0.5, -0.5, -1, -2};
  for (int k = 0; k < 7; ++k)
    if (e == special[k]) return k;
  return 7;
}

void unary(Exec exec, UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p) {
  const int device = kernel_device(exec, unary_name(op), {&x, &out});
  check(x.is_contiguous() && out.is_contiguous() && x.numel() == out.numel(), unary_name(op),
        "expected contiguous operands of one size, got {} and {}", x.desc(), out.desc());
  const int64_t n = x.numel();
  dispatch_kernel_storage(x.dtype(), unary_name(op), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    if (op == UnaryOp::LogicalNot) {
      check(out.dtype() == DType::Bool, "logical_not", "output must be bool, got {}", out.desc());
      for_each_index(exec, device, n, MapK<T, bool, LogicalNotF>{{}, px, static_cast<bool*>(out.raw_data())});
      return;
    }
    check(out.dtype() == x.dtype(), unary_name(op), "output {} for input {}", out.desc(), x.desc());
    T* po = static_cast<T*>(out.raw_data());
    if constexpr (std::is_floating_point_v<compute_t<T>>) {
      if (op == UnaryOp::PowScalar) {
        using F = Computed<T, PowScalarF>;
        for_each_index(exec, device, n, MapK<T, T, F>{F{{pow_kind(p.a), p.a}}, px, po});
        return;
      }
      with_unary_functor<CudaMath>(op, p, [&](auto f) {
        using F = Computed<T, decltype(f)>;
        for_each_index(exec, device, n, MapK<T, T, F>{F{f}, px, po});
      });
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (op == UnaryOp::Neg)
        for_each_index(exec, device, n, MapK<T, T, ufn::Neg>{{}, px, po});
      else if (op == UnaryOp::Abs)
        for_each_index(exec, device, n, MapK<T, T, ufn::Abs>{{}, px, po});
      else
        throw_error(unary_name(op), "expected a floating-point tensor, got int64");
    } else {
      throw_error(unary_name(op), "expected a floating-point tensor, got bool");
    }
  });
}

template <class T, class F>
struct UnaryGradK {
  using C = compute_t<T>;
  F f;
  const T* s;  // x or y as unary_saves says (g itself when nothing is saved)
  const T* g;
  T* gi;
  HM_HD void operator()(int64_t i) const { gi[i] = convert<T>(f.grad(convert<C>(s[i]), convert<C>(g[i]))); }
};

void unary_backward(Exec exec, UnaryOp op, const Tensor& saved, const Tensor& grad, const Tensor& grad_in,
                    UnaryParams p) {
  const int device = saved.defined() ? kernel_device(exec, unary_name(op), {&saved, &grad, &grad_in})
                                     : kernel_device(exec, unary_name(op), {&grad, &grad_in});
  check(grad.is_contiguous() && grad_in.is_contiguous() && (!saved.defined() || saved.is_contiguous()), unary_name(op),
        "expected contiguous operands, got {} and {}", grad.desc(), grad_in.desc());
  dispatch_kernel_floating(grad.dtype(), unary_name(op), [&]<class T>() {
    const T* g = static_cast<const T*>(grad.raw_data());
    const T* s = saved.defined() ? static_cast<const T*>(saved.raw_data()) : g;
    T* gi = static_cast<T*>(grad_in.raw_data());
    with_unary_functor<CudaMath>(op, p, [&](auto f) {
      for_each_index(exec, device, grad.numel(), UnaryGradK<T, decltype(f)>{f, s, g, gi});
    });
  });
}

// -- slot bindings: the device kernels and their host twins ------------------------------------

template <Exec E>
void unary_on(UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p) {
  unary(E, op, x, out, p);
}
template <Exec E>
void unary_backward_on(UnaryOp op, const Tensor& s, const Tensor& g, const Tensor& gi, UnaryParams p) {
  unary_backward(E, op, s, g, gi, p);
}

[[maybe_unused]] const bool bound =
    bind_cuda(unary_kernel, unary_on<Exec::Device>, unary_on<Exec::Host>) &&
    bind_cuda(unary_backward_kernel, unary_backward_on<Exec::Device>, unary_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
