// CPU max/min reductions with optional first-index output (amax, amin, max, min, argmax,
// argmin all land here). Rows: a vectorised max (NaN tracked separately, since a SIMD max
// drops it) and, when indices are wanted, a scan for the first element equal to it.
// Columns: a running best per column, updated with blends across k.
#include <limits>
#include <type_traits>

#include "harmonic/ops/cpu/lane_extremum.h"
#include "harmonic/ops/cpu/reduce_loops.h"
#include "harmonic/ops/extrema_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm {
namespace {

template <bool IsMax, class T>
T row_extremum(const T* p, int64_t n) {  // p (n), n >= 1
  const T acc = cpu::lane_extremum<IsMax>(p, n, p[0]);
  if constexpr (std::is_floating_point_v<T>) {
    int nan = 0;  // an int |-reduction vectorises; a bool || one does not
#pragma omp simd reduction(| : nan)
    for (int64_t i = 0; i < n; ++i) nan |= p[i] != p[i];
    if (nan) return std::numeric_limits<T>::quiet_NaN();
  }
  return acc;
}

template <class T>
int64_t first_index_of(const T* p, int64_t n, T v) {
  const bool nan = v != v;
  for (int64_t i = 0; i < n; ++i)
    if (p[i] == v || (nan && p[i] != p[i])) return i;
  return 0;
}

template <bool IsMax, class T>
void extrema(const T* x, T* values, int64_t* indices, int64_t outer, int64_t r, int64_t inner) {
  cpu::for_each_reduction(
      outer, r, inner,
      [&](int64_t o) {  // x row (r)
        const T* p = x + o * r;
        T v = row_extremum<IsMax>(p, r);
        values[o] = v;
        if (indices) indices[o] = first_index_of(p, r, v);
      },
      [&](int64_t o, int64_t i0, int64_t i1) {  // columns i0..i1 of x[o] (r, inner)
        // Running best in local arrays: nothing aliases them, so the blends vectorise.
        const T* base = x + o * r * inner + i0;
        const int64_t w = i1 - i0;
        T best[cpu::kColumnBlock];
        int64_t at[cpu::kColumnBlock];
        for (int64_t i = 0; i < w; ++i) best[i] = base[i], at[i] = 0;
        for (int64_t k = 1; k < r; ++k) {
          const T* row = base + k * inner;
          if (indices) {
#pragma omp simd
            for (int64_t i = 0; i < w; ++i) {
              const bool b = fn::extremum_beats<IsMax>(row[i], best[i]);
              best[i] = b ? row[i] : best[i];
              at[i] = b ? k : at[i];
            }
          } else {
#pragma omp simd
            for (int64_t i = 0; i < w; ++i) best[i] = fn::extremum_beats<IsMax>(row[i], best[i]) ? row[i] : best[i];
          }
        }
        for (int64_t i = 0; i < w; ++i) values[o * inner + i0 + i] = best[i];
        if (indices)
          for (int64_t i = 0; i < w; ++i) indices[o * inner + i0 + i] = at[i];
      });
}

void cpu_extrema(ExtremaOp op, const Tensor& x, const Tensor& values, const Tensor& indices) {
  const int64_t outer = x.shape()[0], r = x.shape()[1], inner = x.shape()[2];
  check(r >= 1, "reduce_extrema", "empty reduction");
  int64_t* pi = indices.defined() ? indices.data<int64_t>() : nullptr;
  dispatch_numeric(x.dtype(), "reduce_extrema", [&]<class T>() {
    if (op == ExtremaOp::Max)
      extrema<true>(x.data<T>(), values.data<T>(), pi, outer, r, inner);
    else
      extrema<false>(x.data<T>(), values.data<T>(), pi, outer, r, inner);
  });
}

[[maybe_unused]] const bool extrema_bound = (extrema_kernel.cpu = cpu_extrema, true);

}  // namespace
}  // namespace hm
