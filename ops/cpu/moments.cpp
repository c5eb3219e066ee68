// CPU mean/variance kernel (var, std). Two passes, mean then the sum of squared deviations:
// as cheap as Welford on data that fits in cache and without its per-element division,
// and far more accurate than E[x^2] - E[x]^2 when the mean is large. Accumulates in double.
#include <cmath>

#include "harmonic/ops/cpu/reduce_loops.h"
#include "harmonic/ops/moments_kernels.h"

namespace hm {
namespace {

template <class T>
void moments(const T* x, T* mean, T* out, int64_t outer, int64_t r, int64_t inner, int64_t correction, bool take_sqrt) {
  // float32 accumulates in double: a float mean of 1e7 + small values loses the small part.
  using Acc = double;
  // r == 0 gives 0/0 = NaN like PyTorch; r <= correction divides by 0.
  const Acc n = static_cast<Acc>(r);
  const Acc denom = static_cast<Acc>(std::max<int64_t>(r - correction, 0));
  auto finish = [&](Acc ss) { return static_cast<T>(take_sqrt ? std::sqrt(ss / denom) : ss / denom); };
  cpu::for_each_reduction(
      outer, r, inner,
      [&](int64_t o) {  // x row (r)
        const T* p = x + o * r;
        Acc s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t k = 0; k < r; ++k) s += p[k];
        const Acc m = s / n;
        Acc ss = 0;
#pragma omp simd reduction(+ : ss)
        for (int64_t k = 0; k < r; ++k) ss += (p[k] - m) * (p[k] - m);
        mean[o] = static_cast<T>(m);
        out[o] = finish(ss);
      },
      [&](int64_t o, int64_t i0, int64_t i1) {  // columns i0..i1 of x[o] (r, inner)
        const T* base = x + o * r * inner;
        Acc m[cpu::kColumnBlock], ss[cpu::kColumnBlock];
        const int64_t w = i1 - i0;
        for (int64_t i = 0; i < w; ++i) m[i] = 0, ss[i] = 0;
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner + i0;
#pragma omp simd
          for (int64_t i = 0; i < w; ++i) m[i] += row[i];
        }
        for (int64_t i = 0; i < w; ++i) m[i] /= n;
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner + i0;
#pragma omp simd
          for (int64_t i = 0; i < w; ++i) ss[i] += (row[i] - m[i]) * (row[i] - m[i]);
        }
        for (int64_t i = 0; i < w; ++i) {
          mean[o * inner + i0 + i] = static_cast<T>(m[i]);
          out[o * inner + i0 + i] = finish(ss[i]);
        }
      });
}

void cpu_moments(const Tensor& x, int64_t correction, bool take_sqrt, const Tensor& mean, const Tensor& out) {
  const int64_t outer = x.shape()[0], r = x.shape()[1], inner = x.shape()[2];
  dispatch_float(x.dtype(), "moments", [&]<class T>() {
    moments(x.data<T>(), mean.data<T>(), out.data<T>(), outer, r, inner, correction, take_sqrt);
  });
}

[[maybe_unused]] const bool moments_bound = (moments_kernel.cpu = cpu_moments, true);

}  // namespace
}  // namespace hm
