// CPU kernels of where (also serving masked_fill), the fused pow/maximum/minimum backward and
// the in-place add_/mul_. Strided rows from StridedLoop, with vectorised contiguous fast paths.
#include "core/strided_loop.h"
#include "ops/binary_grad_functors.h"
#include "ops/unary_kernels.h"

namespace hm {
namespace {

void cpu_where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const bool* pc = cond.data<bool>();
  StridedLoop<4> loop(out.shape(), {out.strides(), cond.strides(), a.strides(), b.strides()});
  dispatch_all(out.dtype(), "where", [&]<class T>() {
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* po = out.data<T>();
    loop.run([&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
      T* o = po + off[0];
      const bool* c = pc + off[1];
      const T* x = pa + off[2];
      const T* y = pb + off[3];
      if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : y[i];
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 0 && st[3] == 1) {  // masked_fill, gradient masking
        const T xv = *x;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? xv : y[i];
      } else if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 0) {
        const T yv = *y;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? x[i] : yv;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = c[i * st[1]] ? x[i * st[2]] : y[i * st[3]];
      }
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

[[maybe_unused]] const bool bound = [] {
  where_kernel.cpu = cpu_where;
  binary_backward_kernel.cpu = cpu_binary_backward;
  add_inplace_kernel.cpu = cpu_add_inplace;
  mul_inplace_kernel.cpu = cpu_mul_inplace;
  return true;
}();

}  // namespace
}  // namespace hm
