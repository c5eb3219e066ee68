// CPU softmax / log_softmax forward and backward. The class dim splits a contiguous tensor
// into (outer, C, inner). inner == 1 (the last dim) is a row kernel: one pass for the max,
// one for exp and the sum, one to normalise; all three vectorise, with float32 exp from
// vec_math.h. For inner > 1 the same passes run across a block of inner positions at once,
// so the loads stay unit-stride.
#include <limits>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/lane_extremum.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/class_layout.h"
#include "harmonic/ops/softmax_kernels.h"

namespace hm {
namespace {

// -- forward ----------------------------------------------------------------------------------

template <class T>
void softmax_row(const T* x, T* y, int64_t n, bool log) {  // x, y (n)
  const T m = cpu::lane_extremum<true>(x, n, -std::numeric_limits<T>::infinity());
  T s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += CpuMath::exp(x[i] - m);
    const T lse = m + std::log(s);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - lse;
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) {
      T e = CpuMath::exp(x[i] - m);
      y[i] = e;
      s += e;
    }
    const T inv = T(1) / s;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

// x, y (C, inner) with row stride `inner`; handles columns [j0, j0 + w). m, s (w) scratch.
template <class T>
void softmax_cols(const T* x, T* y, int64_t classes, int64_t inner, int64_t j0, int64_t w, bool log, T* m, T* s) {
  for (int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<T>::infinity(), s[j] = 0;
  for (int64_t c = 0; c < classes; ++c) {
    const T* xc = x + c * inner + j0;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) m[j] = xc[j] > m[j] ? xc[j] : m[j];
  }
  for (int64_t c = 0; c < classes; ++c) {
    const T* xc = x + c * inner + j0;
    T* yc = y + c * inner + j0;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      T e = CpuMath::exp(xc[j] - m[j]);
      if (!log) yc[j] = e;
      s[j] += e;
    }
  }
  for (int64_t j = 0; j < w; ++j) s[j] = log ? m[j] + std::log(s[j]) : T(1) / s[j];
  for (int64_t c = 0; c < classes; ++c) {
    const T* xc = x + c * inner + j0;
    T* yc = y + c * inner + j0;
    if (log) {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) yc[j] = xc[j] - s[j];
    } else {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) yc[j] *= s[j];
    }
  }
}

constexpr int64_t kColBlock = 256;

// Runs row_fn(o) for inner == 1 or col_fn(o, j0, w, scratch) over blocks of inner positions.
template <class T, class RowFn, class ColFn>
void for_each_slice(const ClassLayout& l, RowFn row_fn, ColFn col_fn) {
  if (l.inner == 1) {
    parallel_for(l.outer, 4 * l.classes, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) row_fn(o);
    });
    return;
  }
  const int64_t blocks = (l.inner + kColBlock - 1) / kColBlock;
  parallel_for(l.outer * blocks, 4 * l.classes * std::min(l.inner, kColBlock), [&](int64_t b, int64_t e) {
    std::vector<T> scratch(2 * kColBlock);
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / blocks, j0 = (t % blocks) * kColBlock;
      col_fn(o, j0, std::min(kColBlock, l.inner - j0), scratch.data());
    }
  });
}

void cpu_softmax(const Tensor& x, int64_t dim, bool log, const Tensor& out) {
  const ClassLayout l = class_layout(x.shape(), dim);
  dispatch_float(x.dtype(), "softmax", [&]<class T>() {
    const T* px = x.data<T>();
    T* py = out.data<T>();
    const int64_t slab = l.classes * l.inner;
    for_each_slice<T>(
        l, [&](int64_t o) { softmax_row(px + o * slab, py + o * slab, l.classes, log); },
        [&](int64_t o, int64_t j0, int64_t w, T* scratch) {
          softmax_cols(px + o * slab, py + o * slab, l.classes, l.inner, j0, w, log, scratch, scratch + kColBlock);
        });
  });
}

// -- backward ---------------------------------------------------------------------------------

template <class T>
void softmax_backward_row(const T* y, const T* g, T* dx, int64_t n, bool log) {
  T s = 0;
  if (log) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += g[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = g[i] - CpuMath::exp(y[i]) * s;
  } else {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += g[i] * y[i];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (g[i] - s);
  }
}

template <class T>
void softmax_backward_cols(const T* y, const T* g, T* dx, int64_t classes, int64_t inner, int64_t j0, int64_t w,
                           bool log, T* s) {
  for (int64_t j = 0; j < w; ++j) s[j] = 0;
  for (int64_t c = 0; c < classes; ++c) {
    const T* yc = y + c * inner + j0;
    const T* gc = g + c * inner + j0;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) s[j] += log ? gc[j] : gc[j] * yc[j];
  }
  for (int64_t c = 0; c < classes; ++c) {
    const T* yc = y + c * inner + j0;
    const T* gc = g + c * inner + j0;
    T* dc = dx + c * inner + j0;
    if (log) {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) dc[j] = gc[j] - CpuMath::exp(yc[j]) * s[j];
    } else {
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) dc[j] = yc[j] * (gc[j] - s[j]);
    }
  }
}

void cpu_softmax_backward(const Tensor& y, const Tensor& g, int64_t dim, bool log, const Tensor& dx) {
  const ClassLayout l = class_layout(y.shape(), dim);
  dispatch_float(y.dtype(), "softmax_backward", [&]<class T>() {
    const T* py = y.data<T>();
    const T* pg = g.data<T>();
    T* pd = dx.data<T>();
    const int64_t slab = l.classes * l.inner;
    for_each_slice<T>(
        l, [&](int64_t o) { softmax_backward_row(py + o * slab, pg + o * slab, pd + o * slab, l.classes, log); },
        [&](int64_t o, int64_t j0, int64_t w, T* scratch) {
          softmax_backward_cols(py + o * slab, pg + o * slab, pd + o * slab, l.classes, l.inner, j0, w, log, scratch);
        });
  });
}

[[maybe_unused]] const bool softmax_bound =
    (softmax_kernel.cpu = cpu_softmax, softmax_backward_kernel.cpu = cpu_softmax_backward, true);

}  // namespace
}  // namespace hm
