// CPU logsumexp and p-norm kernels. Both are "map then reduce" over k: the map runs inside
// the vectorised loop (exp, |x|, x^2, |x|^p; float32 exp/log from vec_math.h) and a cheap finishing step maps the
// result.
#include <cmath>
#include <limits>

#include "harmonic/ops/cpu/lane_extremum.h"
#include "harmonic/ops/cpu/reduce_loops.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/norms_kernels.h"

namespace hm {
namespace {

// out = sum_k f(x[o, k, i]).
template <class T, class F>
void map_sum(const T* x, T* out, int64_t outer, int64_t r, int64_t inner, F f) {
  cpu::for_each_reduction(
      outer, r, inner,
      [&](int64_t o) {
        const T* p = x + o * r;
        T acc = 0;
#pragma omp simd reduction(+ : acc)
        for (int64_t k = 0; k < r; ++k) acc += f(p[k]);
        out[o] = acc;
      },
      [&](int64_t o, int64_t i0, int64_t i1) {
        const T* base = x + o * r * inner;
        T* so = out + o * inner;
        for (int64_t i = i0; i < i1; ++i) so[i] = 0;
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner;
#pragma omp simd
          for (int64_t i = i0; i < i1; ++i) so[i] += f(row[i]);
        }
      });
}

// out = max_k f(x) (or min), NaN propagating; init is the value of an empty reduction.
template <bool IsMax, class T, class F>
void map_extreme(const T* x, T* out, int64_t outer, int64_t r, int64_t inner, T init, F f) {
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  auto better = [](T a, T b) { return IsMax ? (a > b ? a : b) : (a < b ? a : b); };
  cpu::for_each_reduction(
      outer, r, inner,
      [&](int64_t o) {
        const T* p = x + o * r;
        const T acc = cpu::lane_extremum<IsMax>(p, r, init, f);
        int seen_nan = 0;  // int |, not bool ||: only the former vectorises
#pragma omp simd reduction(| : seen_nan)
        for (int64_t k = 0; k < r; ++k) seen_nan |= p[k] != p[k];
        out[o] = seen_nan ? nan : acc;
      },
      [&](int64_t o, int64_t i0, int64_t i1) {
        const T* base = x + o * r * inner;
        T* so = out + o * inner;
        for (int64_t i = i0; i < i1; ++i) so[i] = init;
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner;
#pragma omp simd
          for (int64_t i = i0; i < i1; ++i) {
            T v = f(row[i]);
            so[i] = (v != v || so[i] != so[i]) ? nan : better(v, so[i]);
          }
        }
      });
}

template <class T>
void logsumexp(const T* x, T* out, int64_t outer, int64_t r, int64_t inner) {
  constexpr T ninf = -std::numeric_limits<T>::infinity();
  // Shift by the max so exp never overflows; an infinite max shifts by 0 (all -inf -> -inf,
  // any +inf -> +inf) instead of producing inf - inf.
  auto shift_of = [](T m) { return std::isinf(m) ? T(0) : m; };
  cpu::for_each_reduction(
      outer, r, inner,
      [&](int64_t o) {
        const T* p = x + o * r;
        const T m = cpu::lane_extremum<true>(p, r, ninf);
        const T shift = shift_of(m);
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t k = 0; k < r; ++k) s += CpuMath::exp(p[k] - shift);
        out[o] = shift + std::log(s);
      },
      [&](int64_t o, int64_t i0, int64_t i1) {
        const T* base = x + o * r * inner;
        T* mo = out + o * inner;  // holds the max until the end
        T s[cpu::kColumnBlock];
        for (int64_t i = i0; i < i1; ++i) mo[i] = ninf, s[i - i0] = 0;
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner;
#pragma omp simd
          for (int64_t i = i0; i < i1; ++i) mo[i] = row[i] > mo[i] ? row[i] : mo[i];
        }
        for (int64_t i = i0; i < i1; ++i) mo[i] = shift_of(mo[i]);
        for (int64_t k = 0; k < r; ++k) {
          const T* row = base + k * inner;
#pragma omp simd
          for (int64_t i = i0; i < i1; ++i) s[i - i0] += CpuMath::exp(row[i] - mo[i]);
        }
        for (int64_t i = i0; i < i1; ++i) mo[i] += std::log(s[i - i0]);
      });
}

void cpu_logsumexp(const Tensor& x, const Tensor& out) {
  dispatch_float(x.dtype(), "logsumexp",
                 [&]<class T>() { logsumexp(x.data<T>(), out.data<T>(), x.shape()[0], x.shape()[1], x.shape()[2]); });
}

void cpu_norm(const Tensor& x, double p, const Tensor& out) {
  const int64_t outer = x.shape()[0], r = x.shape()[1], inner = x.shape()[2];
  dispatch_float(x.dtype(), "norm", [&]<class T>() {
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const int64_t m = out.numel();
    constexpr T inf = std::numeric_limits<T>::infinity();
    if (p == 2) {
      map_sum(px, po, outer, r, inner, [](T v) { return v * v; });
      for (int64_t i = 0; i < m; ++i) po[i] = std::sqrt(po[i]);
    } else if (p == 1) {
      map_sum(px, po, outer, r, inner, [](T v) { return std::fabs(v); });
    } else if (p == 0) {
      map_sum(px, po, outer, r, inner, [](T v) { return v != T(0) ? T(1) : T(0); });
    } else if (std::isinf(p)) {
      if (p > 0)
        map_extreme<true>(px, po, outer, r, inner, T(0), [](T v) { return std::fabs(v); });
      else
        map_extreme<false>(px, po, outer, r, inner, inf, [](T v) { return std::fabs(v); });
    } else {
      const T tp = static_cast<T>(p);
      // |v|^p as exp(p log |v|): vectorised for float32 (0 -> exp(-inf) = 0 for p > 0).
      map_sum(px, po, outer, r, inner, [tp](T v) { return CpuMath::exp(tp * CpuMath::log(std::fabs(v))); });
      for (int64_t i = 0; i < m; ++i) po[i] = std::pow(po[i], T(1) / tp);
    }
  });
}

[[maybe_unused]] const bool norms_bound = (logsumexp_kernel.cpu = cpu_logsumexp, norm_kernel.cpu = cpu_norm, true);

}  // namespace
}  // namespace hm
