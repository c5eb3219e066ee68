// CPU row kernels of the Fourier head log-pmf (see ops/fourier_head.cpp for the math). Each
// row is independent. With aC = alpha.C etc. at the half-grid bin j and its mirror m-1-j:
//   R_j = aC + bS, I_j = bC - aS;   R_mirror = aC - bS, I_mirror = bC + aS
//   q_j = P + D, q_mirror = P - D, P = aC^2 + aS^2 + bC^2 + bS^2, D = 2 (aC bS - bC aS).
// For odd m the middle bin (b = 0, S = 0) is its own mirror and is counted once.
#include "core/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/fourier_kernels.h"

namespace hm {
namespace {

constexpr double kPmfEps = 1e-5;

template <class T>
void log_pmf_row(const T* z, T* out, int64_t m) {  // z (4h), out (m)
  const int64_t h = (m + 1) / 2, pairs = m / 2;    // pairs: bins with a distinct mirror
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < pairs; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
    out[j] = p + d;
    out[m - 1 - j] = p - d;
    total += T(2) * p;
  }
  if (h > pairs) {  // odd m: the middle bin
    const int64_t j = pairs;
    T r = ac[j] + bs[j], i = bc[j] - as[j];
    out[j] = r * r + i * i;
    total += out[j];
  }
  const T inv = T(1) / total;
  const T eps = T(kPmfEps);
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) out[j] = CpuMath::log(out[j] * inv + eps);
}

// dL/dq_j = w_j = (h_j - sum_k h_k y_k) / Q with h_j = g_j / (y_j + eps); then, with w for the
// bin and v for its mirror, dq/dz by the chain rule through q_j = P + D and q_mirror = P - D.
template <class T>
void log_pmf_backward_row(const T* z, const T* g, T* gz, int64_t m) {  // z (4h), g (m), gz (4h)
  const int64_t h = (m + 1) / 2, pairs = m / 2;
  const T *ac = z, *as = z + h, *bc = z + 2 * h, *bs = z + 3 * h;
  T *gac = gz, *gas = gz + h, *gbc = gz + 2 * h, *gbs = gz + 3 * h;
  const T eps = T(kPmfEps);
  T total = 0;
#pragma omp simd reduction(+ : total)
  for (int64_t j = 0; j < h; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    total += j < pairs ? T(2) * p : p;  // the middle bin's D is 0 (S = 0 there)
  }
  const T inv = T(1) / total;
  T hy = 0;
  // gac/gas hold h_j / h_mirror for now (the mirror's is 0 for the middle bin).
#pragma omp simd reduction(+ : hy)
  for (int64_t j = 0; j < h; ++j) {
    T p = ac[j] * ac[j] + as[j] * as[j] + bc[j] * bc[j] + bs[j] * bs[j];
    T d = T(2) * (ac[j] * bs[j] - bc[j] * as[j]);
    T y0 = (p + d) * inv, y1 = (p - d) * inv;
    T h0 = g[j] / (y0 + eps);
    T h1 = j < pairs ? g[m - 1 - j] / (y1 + eps) : T(0);
    gac[j] = h0;
    gas[j] = h1;
    hy += h0 * y0 + h1 * y1;
  }
#pragma omp simd
  for (int64_t j = 0; j < h; ++j) {
    T w = (gac[j] - hy) * inv;
    T v = j < pairs ? (gas[j] - hy) * inv : T(0);
    T sum = T(2) * (w + v), dif = T(2) * (w - v);
    T a_c = ac[j], a_s = as[j], b_c = bc[j], b_s = bs[j];
    gac[j] = a_c * sum + b_s * dif;
    gbs[j] = b_s * sum + a_c * dif;
    gbc[j] = b_c * sum - a_s * dif;
    gas[j] = a_s * sum - b_c * dif;
  }
}

void cpu_log_pmf(const Tensor& z, const Tensor& out) {
  const int64_t m = out.size(-1), rows = m ? out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf", [&]<class T>() {
    const T* pz = z.data<T>();
    T* po = out.data<T>();
    parallel_for(rows, 8 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_row(pz + r * zw, po + r * m, m);
    });
  });
}

void cpu_log_pmf_backward(const Tensor& z, const Tensor& grad_out, const Tensor& grad_z) {
  const int64_t m = grad_out.size(-1), rows = m ? grad_out.numel() / m : 0, zw = z.size(-1);
  dispatch_float(z.dtype(), "fourier_head_log_pmf_backward", [&]<class T>() {
    const T* pz = z.data<T>();
    const T* pg = grad_out.data<T>();
    T* pd = grad_z.data<T>();
    parallel_for(rows, 12 * m, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) log_pmf_backward_row(pz + r * zw, pg + r * m, pd + r * zw, m);
    });
  });
}

[[maybe_unused]] const bool bound =
    (fourier_log_pmf_kernel.cpu = cpu_log_pmf, fourier_log_pmf_backward_kernel.cpu = cpu_log_pmf_backward, true);

}  // namespace
}  // namespace hm
