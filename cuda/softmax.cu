// CUDA softmax / log_softmax, forward and backward, with the formulas of the CPU kernels
// (ops/cpu/softmax.cpp). Scores are (outer, C, inner) around the dim (ops/class_layout.h):
//   inner == 1: a warp (or a block, for C >= 1024) per row, reductions in cuda/device/rows.cuh;
//   inner > 1:  a thread per (outer, inner) position walks the C classes (coalesced in j).
#include <limits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/ops/class_layout.h"
#include "harmonic/ops/softmax_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
HM_HD T neg_inf() {
  return -std::numeric_limits<T>::infinity();
}

template <class T>
struct SoftmaxRows {  // x, y (rows, C)
  using Acc = T;
  using Op1 = MaxOp;
  const T* x;
  T* y;
  int64_t c;
  bool log;
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T m = neg_inf<T>();
    for (int64_t i = lane; i < c; i += lanes) m = x[r * c + i] > m ? x[r * c + i] : m;
    return m;
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T m) const {
    T s = 0;
    for (int64_t i = lane; i < c; i += lanes) s += std::exp(x[r * c + i] - m);
    return s;
  }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T m, T s, T) const {
    const T lse = m + std::log(s), inv = T(1) / s;
    for (int64_t i = lane; i < c; i += lanes)
      y[r * c + i] = log ? x[r * c + i] - lse : std::exp(x[r * c + i] - m) * inv;
  }
};

template <class T>
struct SoftmaxCols {  // one thread per (outer, inner) position
  const T* x;
  T* y;
  ClassLayout l;
  bool log;
  HM_HD void operator()(int64_t p) const {
    const int64_t b = l.base(p), st = l.inner;
    T m = neg_inf<T>(), s = 0;
    for (int64_t c = 0; c < l.classes; ++c) m = x[b + c * st] > m ? x[b + c * st] : m;
    for (int64_t c = 0; c < l.classes; ++c) s += std::exp(x[b + c * st] - m);
    const T lse = m + std::log(s), inv = T(1) / s;
    for (int64_t c = 0; c < l.classes; ++c)
      y[b + c * st] = log ? x[b + c * st] - lse : std::exp(x[b + c * st] - m) * inv;
  }
};

template <class T>
struct SoftmaxBackwardRows {  // softmax: dx = y (g - sum(g y)); log: dx = g - exp(y) sum(g)
  using Acc = T;
  using Op1 = AddOp;
  const T *y, *g;
  T* dx;
  int64_t c;
  bool log;
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < c; i += lanes) s += log ? g[r * c + i] : g[r * c + i] * y[r * c + i];
    return s;
  }
  HM_HD T part2(int64_t, int, int, T) const { return T(0); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T s, T, T) const {
    for (int64_t i = lane; i < c; i += lanes) {
      const int64_t k = r * c + i;
      dx[k] = log ? g[k] - std::exp(y[k]) * s : y[k] * (g[k] - s);
    }
  }
};

template <class T>
struct SoftmaxBackwardCols {
  const T *y, *g;
  T* dx;
  ClassLayout l;
  bool log;
  HM_HD void operator()(int64_t p) const {
    const int64_t b = l.base(p), st = l.inner;
    T s = 0;
    for (int64_t c = 0; c < l.classes; ++c) s += log ? g[b + c * st] : g[b + c * st] * y[b + c * st];
    for (int64_t c = 0; c < l.classes; ++c) {
      const int64_t k = b + c * st;
      dx[k] = log ? g[k] - std::exp(y[k]) * s : y[k] * (g[k] - s);
    }
  }
};

template <Exec E>
void softmax_on(const Tensor& x, int64_t dim, bool log, const Tensor& out) {
  const int device = kernel_device(E, "softmax", {&x, &out});
  const ClassLayout l = class_layout(x.shape(), dim);
  dispatch_float(x.dtype(), "softmax", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = static_cast<T*>(out.raw_data());
    if (l.inner == 1)
      run_rows(E, device, SoftmaxRows<T>{px, py, l.classes, log}, l.outer, l.classes);
    else
      for_each_index(E, device, l.positions(), SoftmaxCols<T>{px, py, l, log});
  });
}

template <Exec E>
void softmax_backward_on(const Tensor& y, const Tensor& g, int64_t dim, bool log, const Tensor& dx) {
  const int device = kernel_device(E, "softmax_backward", {&y, &g, &dx});
  const ClassLayout l = class_layout(y.shape(), dim);
  dispatch_float(y.dtype(), "softmax_backward", [&]<class T>() {
    const T* py = static_cast<const T*>(y.raw_data());
    const T* pg = static_cast<const T*>(g.raw_data());
    T* pd = static_cast<T*>(dx.raw_data());
    if (l.inner == 1)
      run_rows(E, device, SoftmaxBackwardRows<T>{py, pg, pd, l.classes, log}, l.outer, l.classes);
    else
      for_each_index(E, device, l.positions(), SoftmaxBackwardCols<T>{py, pg, pd, l, log});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(softmax_kernel, softmax_on<Exec::Device>, softmax_on<Exec::Host>) &&
    bind_cuda(softmax_backward_kernel, softmax_backward_on<Exec::Device>, softmax_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
