// The Fourier head's log-pmf rows, forward and backward: the one formula that the CPU kernels
// (ops/cpu/fourier_head.cpp) and the CUDA kernels (cuda/fourier_head.cu, a thread per row) both
// run, with the backend's math policy for the log. A row of z holds [alpha.C | alpha.S | beta.C |
// beta.S] at the first h = ceil(m/2) bins (ops/fourier_head_kernels.h). With aC = alpha.C etc. at
// the half-grid bin j and its mirror m-1-j:
//   R_j = aC + bS, I_j = bC - aS;   R_mirror = aC - bS, I_mirror = bC + aS
//   q_j = P + D, q_mirror = P - D, P = aC^2 + aS^2 + bC^2 + bS^2, D = 2 (aC bS - bC aS).
// For odd m the middle bin (b = 0, S = 0) is its own mirror and is counted once.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"

// `#pragma omp simd` where the host compiles a loop; nothing in device code.
#define HM_FOURIER_PRAGMA(x) _Pragma(#x)
#if defined(__CUDA_ARCH__)
#define HM_FOURIER_SIMD(...)
#else
#define HM_FOURIER_SIMD(...) HM_FOURIER_PRAGMA(omp simd __VA_ARGS__)
#endif

namespace hm::fourier {

inline constexpr double kPmfEps = 1e-5;  // log(pmf + eps), as the authors' head

// Half-grid bin j (ac = alpha.C etc. there) and its mirror: q_j = P + D, q_mirror = P - D.
template <class T>
HM_HD T pair_power(T ac, T as, T bc, T bs) {  // P
  return ac * ac + as * as + bc * bc + bs * bs;
}
template <class T>
HM_HD T pair_skew(T ac, T as, T bc, T bs) {  // D
  return T(2) * (ac * bs - bc * as);
}

// z (4h) -> out (m) = log(q_j / sum q + eps).
template <class Math, class T>
HM_HD void log_pmf_row(const T* z, T* out, int64_t m) {
  const int64_t h = (m + 1) / 2, pairs = m / 2;  // pairs: bins with a distinct mirror
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T total = 0;
  HM_FOURIER_SIMD(reduction(+ : total))
  for (int64_t j = 0; j < pairs; ++j) {
    const T p = pair_power(ac[j], as[j], bc[j], bs[j]);
    const T d = pair_skew(ac[j], as[j], bc[j], bs[j]);
    out[j] = p + d;
    out[m - 1 - j] = p - d;
    total += T(2) * p;
  }
  if (h > pairs) {  // odd m: the middle bin
    const int64_t j = pairs;
    const T r = ac[j] + bs[j], i = bc[j] - as[j];
    out[j] = r * r + i * i;
    total += out[j];
  }
  const T inv = T(1) / total;
  const T eps = T(kPmfEps);
  HM_FOURIER_SIMD()
  for (int64_t j = 0; j < m; ++j) out[j] = Math::log(out[j] * inv + eps);
}

// dL/dz at half-grid bin j from w = dL/dq_j and v = dL/dq_mirror (0 for the middle bin).
template <class T>
HM_HD void pair_grad(T a_c, T a_s, T b_c, T b_s, T w, T v, T& gac, T& gas, T& gbc, T& gbs) {
  const T sum = T(2) * (w + v), dif = T(2) * (w - v);
  gac = a_c * sum + b_s * dif;
  gbs = b_s * sum + a_c * dif;
  gbc = b_c * sum - a_s * dif;
  gas = a_s * sum - b_c * dif;
}

// dL/dq_j = w_j = (h_j - sum_k h_k y_k) / Q with h_j = g_j / (y_j + eps); then, with w for the
// bin and v for its mirror, dq/dz by the chain rule through q_j = P + D and q_mirror = P - D.
// z (4h), g (m) -> gz (4h).
template <class T>
HM_HD void log_pmf_backward_row(const T* z, const T* g, T* gz, int64_t m) {
  const int64_t h = (m + 1) / 2, pairs = m / 2;
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T *gac = gz, *gas = gz + h, *gbc = gz + 2 * h, *gbs = gz + 3 * h;
  const T eps = T(kPmfEps);
  T total = 0;
  HM_FOURIER_SIMD(reduction(+ : total))
  for (int64_t j = 0; j < h; ++j) {
    const T p = pair_power(ac[j], as[j], bc[j], bs[j]);
    total += j < pairs ? T(2) * p : p;  // the middle bin's D is 0 (S = 0 there)
  }
  const T inv = T(1) / total;
  T hy = 0;
  // gac/gas hold h_j / h_mirror for now (the mirror's is 0 for the middle bin).
  HM_FOURIER_SIMD(reduction(+ : hy))
  for (int64_t j = 0; j < h; ++j) {
    const T p = pair_power(ac[j], as[j], bc[j], bs[j]);
    const T d = pair_skew(ac[j], as[j], bc[j], bs[j]);
    const T y0 = (p + d) * inv, y1 = (p - d) * inv;
    const T h0 = g[j] / (y0 + eps);
    const T h1 = j < pairs ? g[m - 1 - j] / (y1 + eps) : T(0);
    gac[j] = h0;
    gas[j] = h1;
    hy += h0 * y0 + h1 * y1;
  }
  HM_FOURIER_SIMD()
  for (int64_t j = 0; j < h; ++j) {
    const T w = (gac[j] - hy) * inv;
    const T v = j < pairs ? (gas[j] - hy) * inv : T(0);
    pair_grad(ac[j], as[j], bc[j], bs[j], w, v, gac[j], gas[j], gbc[j], gbs[j]);
  }
}

}  // namespace hm::fourier
