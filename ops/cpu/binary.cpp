// CPU kernels of the binary elementwise family: the forward, one loop template specialised for
// the contiguous and scalar-broadcast rows that dominate real workloads so they vectorise; the
// fused pow/maximum/minimum backward; the in-place add_/mul_.
#include <type_traits>

#include "harmonic/core/strided_loop.h"
#include "harmonic/ops/binary_grad_functors.h"
#include "harmonic/ops/binary_kernels.h"

namespace hm {
namespace {

template <class T, class Out, class F>
void binary_rows(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const T* pa = static_cast<const T*>(a.raw_data());
  const T* pb = static_cast<const T*>(b.raw_data());
  Out* po = static_cast<Out*>(out.raw_data());
  StridedLoop<3> loop(out.shape(), {out.strides(), a.strides(), b.strides()});
  loop.run([&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
    Out* o = po + off[0];
    const T* x = pa + off[1];
    const T* y = pb + off[2];
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T yv = *y;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T xv = *x;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(x[i * st[1]], y[i * st[2]]);
    }
  });
}

void cpu_binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  dispatch_all(a.dtype(), "binary", [&]<class T>() {
    with_binary_functor(op, [&](auto f) {
      // Decided at compile time, so no arithmetic functor is instantiated for bool elements.
      constexpr bool comparison = std::is_same_v<std::invoke_result_t<decltype(f), float, float>, bool>;
      if constexpr (comparison) binary_rows<T, bool>(a, b, out, f);
      else if constexpr (std::is_same_v<T, bool>) throw_error("binary", "arithmetic on bool tensors");
      else binary_rows<T, T>(a, b, out, f);
    });
  });
}

void cpu_binary_backward(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& grad, const Tensor& grad_a,
                         const Tensor& grad_b) {
  check(has_binary_grad_functor(op), "binary_backward", "no derivative functor for binary op {}", static_cast<int>(op));
  const Shape& shape = grad.shape();
  StridedLoop<4> loop(shape, {contiguous_strides(shape), a.strides(), b.strides(), grad.strides()});
  dispatch_float(grad.dtype(), "binary_backward", [&]<class T>() {
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    const T* pg = static_cast<const T*>(grad.raw_data());
    T* pga = grad_a.defined() ? grad_a.data<T>() : nullptr;
    T* pgb = grad_b.defined() ? grad_b.data<T>() : nullptr;
    with_binary_grad_functor(op, [&](auto f) {
      loop.run([&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
        for (int64_t i = 0; i < n; ++i) {
          T ga, gb;
          f(pa[off[1] + i * st[1]], pb[off[2] + i * st[2]], pg[off[3] + i * st[3]], ga, gb);
          if (pga) pga[off[0] + i * st[0]] = ga;
          if (pgb) pgb[off[0] + i * st[0]] = gb;
        }
      });
    });
  });
}

void cpu_add_inplace(const Tensor& x, const Tensor& y, double alpha) {
  StridedLoop<2> loop(x.shape(), {x.strides(), y.strides()});
  dispatch_numeric(x.dtype(), "add_", [&]<class T>() {
    T* px = x.data<T>();
    const T* py = static_cast<const T*>(y.raw_data());
    const T s = static_cast<T>(alpha);
    loop.run([&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
      T* o = px + off[0];
      const T* v = py + off[1];
      if (st[0] == 1 && st[1] == 1) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] += s * v[i];
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] += s * v[i * st[1]];
      }
    });
  });
}

void cpu_mul_inplace(const Tensor& x, double scale) {
  StridedLoop<1> loop(x.shape(), {x.strides()});
  dispatch_numeric(x.dtype(), "mul_", [&]<class T>() {
    T* px = x.data<T>();
    const T s = static_cast<T>(scale);
    loop.run([&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
      T* o = px + off[0];
      if (st[0] == 1) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] *= s;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] *= s;
      }
    });
  });
}

[[maybe_unused]] const bool binary_bound =
    (binary_kernel.cpu = cpu_binary, binary_backward_kernel.cpu = cpu_binary_backward,
     add_inplace_kernel.cpu = cpu_add_inplace, mul_inplace_kernel.cpu = cpu_mul_inplace, true);

}  // namespace
}  // namespace hm
