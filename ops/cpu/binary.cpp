// CPU kernels of the binary elementwise family: the forward, one loop template specialised for
// the contiguous and scalar-broadcast rows that dominate real workloads so they vectorise; the
// fused pow/maximum/minimum backward; the in-place add_/mul_.
#include <type_traits>

#include "harmonic/core/strided_loop.h"
#include "harmonic/ops/binary_grad_functors.h"
#include "harmonic/ops/binary_kernels.h"

namespace hm {
namespace {

// Elements are read as their compute type (float32 for bfloat16) and the result rounded once
// on the store; for float32/float64/int64 operands the conversions are no-ops.
template <class Ta, class Tb, class Out, class F>
void binary_rows(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  using C = std::common_type_t<compute_t<Ta>, compute_t<Tb>>;
  const Ta* pa = static_cast<const Ta*>(a.raw_data());
  const Tb* pb = static_cast<const Tb*>(b.raw_data());
  Out* po = static_cast<Out*>(out.raw_data());
  auto g = [f](C x, C y) { return convert<Out>(f(x, y)); };
  StridedLoop<3> loop(out.shape(), {out.strides(), a.strides(), b.strides()});
  loop.run([&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
    Out* o = po + off[0];
    const Ta* x = pa + off[1];
    const Tb* y = pb + off[2];
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = g(convert<C>(x[i]), convert<C>(y[i]));
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const C yv = convert<C>(*y);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = g(convert<C>(x[i]), yv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const C xv = convert<C>(*x);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = g(xv, convert<C>(y[i]));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = g(convert<C>(x[i * st[1]]), convert<C>(y[i * st[2]]));
    }
  });
}

// Operand dtypes are equal, or bfloat16 with float32 (a float32 result, computed without a
// converted copy of the bfloat16 operand).
void cpu_binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  with_binary_functor(op, [&](auto f) {
    // Decided at compile time, so no arithmetic functor is instantiated for bool elements.
    constexpr bool comparison = std::is_same_v<std::invoke_result_t<decltype(f), float, float>, bool>;
    if (a.dtype() != b.dtype()) {
      using Out = std::conditional_t<comparison, bool, float>;
      if (a.dtype() == DType::BFloat16 && b.dtype() == DType::Float32)
        binary_rows<BFloat16, float, Out>(a, b, out, f);
      else if (a.dtype() == DType::Float32 && b.dtype() == DType::BFloat16)
        binary_rows<float, BFloat16, Out>(a, b, out, f);
      else
        throw_error("binary", fmt::format("no kernel for {} with {}", a.desc(), b.desc()));
      return;
    }
    dispatch_storage(a.dtype(), "binary", [&]<class T>() {
      if constexpr (comparison) binary_rows<T, T, bool>(a, b, out, f);
      else if constexpr (std::is_same_v<T, bool>) throw_error("binary", "arithmetic on bool tensors");
      else binary_rows<T, T, T>(a, b, out, f);
    });
  });
}

void cpu_binary_backward(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& grad, const Tensor& grad_a,
                         const Tensor& grad_b) {
  check(has_binary_grad_functor(op), "binary_backward", "no derivative functor for binary op {}", static_cast<int>(op));
  const Shape& shape = grad.shape();
  StridedLoop<4> loop(shape, {contiguous_strides(shape), a.strides(), b.strides(), grad.strides()});
  dispatch_floating(grad.dtype(), "binary_backward", [&]<class T>() {
    using C = compute_t<T>;
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    const T* pg = static_cast<const T*>(grad.raw_data());
    T* pga = grad_a.defined() ? grad_a.data<T>() : nullptr;
    T* pgb = grad_b.defined() ? grad_b.data<T>() : nullptr;
    with_binary_grad_functor(op, [&](auto f) {
      loop.run([&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
        for (int64_t i = 0; i < n; ++i) {
          C ga, gb;
          f(convert<C>(pa[off[1] + i * st[1]]), convert<C>(pb[off[2] + i * st[2]]),
            convert<C>(pg[off[3] + i * st[3]]), ga, gb);
          if (pga) pga[off[0] + i * st[0]] = convert<T>(ga);
          if (pgb) pgb[off[0] + i * st[0]] = convert<T>(gb);
        }
      });
    });
  });
}

void cpu_add_inplace(const Tensor& x, const Tensor& y, double alpha) {
  StridedLoop<2> loop(x.shape(), {x.strides(), y.strides()});
  dispatch_storage(x.dtype(), "add_", [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      throw_error("add_", "arithmetic on a bool tensor");
    } else {
      using C = compute_t<T>;
      T* px = x.data<T>();
      const T* py = static_cast<const T*>(y.raw_data());
      const C s = static_cast<C>(alpha);
      loop.run([&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
        T* o = px + off[0];
        const T* v = py + off[1];
        if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(convert<C>(o[i]) + s * convert<C>(v[i]));
        } else {
          for (int64_t i = 0; i < n; ++i)
            o[i * st[0]] = convert<T>(convert<C>(o[i * st[0]]) + s * convert<C>(v[i * st[1]]));
        }
      });
    }
  });
}

void cpu_mul_inplace(const Tensor& x, double scale) {
  StridedLoop<1> loop(x.shape(), {x.strides()});
  dispatch_storage(x.dtype(), "mul_", [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      throw_error("mul_", "arithmetic on a bool tensor");
    } else {
      using C = compute_t<T>;
      T* px = x.data<T>();
      const C s = static_cast<C>(scale);
      loop.run([&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
        T* o = px + off[0];
        if (st[0] == 1) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(convert<C>(o[i]) * s);
        } else {
          for (int64_t i = 0; i < n; ++i) o[i * st[0]] = convert<T>(convert<C>(o[i * st[0]]) * s);
        }
      });
    }
  });
}

[[maybe_unused]] const bool binary_bound =
    (binary_kernel.cpu = cpu_binary, binary_backward_kernel.cpu = cpu_binary_backward,
     add_inplace_kernel.cpu = cpu_add_inplace, mul_inplace_kernel.cpu = cpu_mul_inplace, true);

}  // namespace
}  // namespace hm
