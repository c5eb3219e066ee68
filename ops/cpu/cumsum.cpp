// CPU inclusive prefix sum along the middle dim of x (outer, n, inner). With inner == 1 each
// row is a sequential scan (rows in parallel); otherwise whole rows of inner elements are
// added at once, which vectorises. reverse scans from the back (cumsum's gradient).
#include "harmonic/ops/cpu/reduce_loops.h"
#include "harmonic/ops/cumsum_kernels.h"

namespace hm {
namespace {

template <class T>
void cumsum(const T* x, T* out, int64_t outer, int64_t n, int64_t inner, bool reverse) {
  // Element k of a scan in visiting order.
  auto at = [&](int64_t k) { return reverse ? n - 1 - k : k; };
  cpu::for_each_reduction(
      outer, n, inner,
      [&](int64_t o) {  // x row (n)
        const T* p = x + o * n;
        T* q = out + o * n;
        T acc = 0;
        for (int64_t k = 0; k < n; ++k) {
          acc += p[at(k)];
          q[at(k)] = acc;
        }
      },
      [&](int64_t o, int64_t i0, int64_t i1) {  // columns i0..i1 of x[o] (n, inner)
        const T* base = x + o * n * inner;
        T* obase = out + o * n * inner;
        const T* prev = nullptr;
        for (int64_t k = 0; k < n; ++k) {
          const T* row = base + at(k) * inner;
          T* orow = obase + at(k) * inner;
          if (prev) {
#pragma omp simd
            for (int64_t i = i0; i < i1; ++i) orow[i] = prev[i] + row[i];
          } else {
            for (int64_t i = i0; i < i1; ++i) orow[i] = row[i];
          }
          prev = orow;
        }
      });
}

void cpu_cumsum(const Tensor& x, bool reverse, const Tensor& out) {
  dispatch_numeric(x.dtype(), "cumsum", [&]<class T>() {
    cumsum(x.data<T>(), out.data<T>(), x.shape()[0], x.shape()[1], x.shape()[2], reverse);
  });
}

[[maybe_unused]] const bool cumsum_bound = (cumsum_kernel.cpu = cpu_cumsum, true);

}  // namespace
}  // namespace hm
