// The FRU/SRU recurrence's step loops as per-step GEMMs over a chunk of batch rows (n rows):
// the formulation for large M_t = [M_1,t .. M_G,t] (d, G*R) (ops/cpu/fru_recurrence.cpp, use_batched).
// Same algebra and the same z_g / A_g running sums as the per-row loops of ops/cpu/fru_recurrence.cpp;
// each step's products become
//   forward:  phi_t = relu(px_t + r_t w_pr^T)      (n, R) x (R, d)
//             z_t   = a z_t-1 + phi_t M_t          (n, d) x (d, G*R)
//   backward: d phi += A_t M_t^T                   (n, G*R) x (G*R, d)
//             P_t^T = phi_t^T A_t                  (d, n) x (n, G*R)
//             da_t  = d pre_phi w_pr               (n, d) x (d, R)
// so M_t is read once per step instead of once per row.
#include <algorithm>

#include "harmonic/ops/cpu/fru_recurrence_setup.h"

namespace hm::fru_cpu {

template <class T>
void forward_batched(const Setup<T>& s, const ForwardArgs<T>& f, int64_t b0, int64_t b1) {
  const int64_t steps = s.steps, B = s.B, d = s.d, R = s.R, K = s.K, S = s.S, G = s.G, GR = G * R;
  const int64_t n = b1 - b0;
  T* z = f.z + b0 * GR;  // (n, G, R)
  for (int64_t t = 0; t < steps; ++t) {
    T* rt = f.r + (t * B + b0) * R;  // r_t = relu(b_r + sum_g z_g,t-1)   (n, R)
    for (int64_t i = 0; i < n; ++i) {
      T* rb = rt + i * R;
      const T* zb = z + i * GR;
#pragma omp simd
      for (int64_t q = 0; q < R; ++q) rb[q] = f.b_r[q] + zb[q];
      for (int64_t g = 1; g < G; ++g)
#pragma omp simd
        for (int64_t q = 0; q < R; ++q) rb[q] += zb[g * R + q];
#pragma omp simd
      for (int64_t q = 0; q < R; ++q) rb[q] = rb[q] < T(0) ? T(0) : rb[q];
    }
    T* pt = f.phi + (t * B + b0) * d;  // phi_t = relu(px_t + r_t w_pr^T)   (n, d)
    std::copy_n(f.px + (t * B + b0) * d, n * d, pt);
    gemm_rows<T>(n, d, R, rt, false, f.w_pr, true, pt, 1.0);
#pragma omp simd
    for (int64_t i = 0; i < n * d; ++i) pt[i] = pt[i] < T(0) ? T(0) : pt[i];
    if (t + 1 < steps) {  // z_g,t = a_g z_g,t-1 + phi_t M_g,t^T (the last step's is never read)
      if (G > 1) {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t g = 0; g < G; ++g) {
            T* zb = z + i * GR + g * R;
            const T ag = s.a[g];
#pragma omp simd
            for (int64_t q = 0; q < R; ++q) zb[q] *= ag;
          }
      }
      gemm_rows<T>(n, GR, d, pt, false, s.m_of(0, t), false, z, G > 1 ? 1.0 : double(s.a[0]));
    }
    if (!f.all_steps) continue;
    const T* prev = (t == 0 ? f.mu0 : f.mu + (t - 1) * B * S) + b0 * S;  // (n, S)
    T* mt = f.mu + (t * B + b0) * S;
    const T* ct = f.coef + t * K;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < K; ++k) {
        const T m = f.decay[k], c = ct[k];
        const T* pv = prev + i * S + k * d;
        const T* pb = pt + i * d;
        T* mb = mt + i * S + k * d;
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) mb[j] = m * pv[j] + c * pb[j];
      }
  }
}

template <class T>
void backward_batched(const Setup<T>& s, const BackwardArgs<T>& f, int64_t b0, int64_t b1, T* gc, T* gw) {
  const int64_t steps = s.steps, B = s.B, d = s.d, R = s.R, K = s.K, G = s.G, GR = G * R, RD = R * d;
  const int64_t n = b1 - b0;
  T* A = f.A + b0 * GR;                            // (n, G, R)
  std::vector<T> dp(n * d), da(n * R), p(d * GR);  // p: P_t^T = phi_t^T A_t   (d, G, R)
  for (int64_t t = steps - 1; t >= 0; --t) {
    const T* pt = f.phi + (t * B + b0) * d;  // (n, d)
    const T* ct = f.coef + t * K;
    upstream(s, f, t, b0, b1, dp.data(), gc);
    const T* m = s.m_of(0, t);  // (d, G*R)
    gemm_rows<T>(n, d, GR, A, false, m, true, dp.data(), 1.0);
    gemm_rows<T>(d, GR, n, pt, true, A, false, p.data(), 0.0);
    T* dpx = f.g_px + (t * B + b0) * d;  // d of phi's pre-activation
#pragma omp simd
    for (int64_t i = 0; i < n * d; ++i) dpx[i] = pt[i] <= T(0) ? T(0) : dp[i];
    gemm_rows<T>(n, R, d, dpx, false, f.w_pr, false, da.data(), 0.0);  // da_t = (dpx w_pr) masked by r_t > 0
    const T* rt = f.r + (t * B + b0) * R;
    for (int64_t i = 0; i < n; ++i) {
      T* dab = da.data() + i * R;
      const T* rb = rt + i * R;
      T* sb = f.dsum + (b0 + i) * R;
#pragma omp simd
      for (int64_t q = 0; q < R; ++q) {
        dab[q] = rb[q] <= T(0) ? T(0) : dab[q];
        sb[q] += dab[q];
      }
      for (int64_t g = 0; g < G; ++g) {  // A_g,t-1 = a_g A_g,t + da_t
        T* ab = A + i * GR + g * R;
        const T ag = s.a[g];
#pragma omp simd
        for (int64_t q = 0; q < R; ++q) ab[q] = ag * ab[q] + dab[q];
      }
    }
    // d coef[t, k] += <w_r[:, k, :], P_g(k),t>;  d w_r[:, k, :] += coef[t, k] P_g(k),t
    for (int64_t k = 0; k < K; ++k) {
      const T* wk = s.w_k.data() + k * RD;
      T* gwk = gw + k * RD;
      const T cf = ct[k];
      T acc = T(0);
      for (int64_t j = 0; j < d; ++j) {
        const T* pj = p.data() + j * GR + s.group[k] * R;
        const T* wj = wk + j * R;
        T* gj = gwk + j * R;
#pragma omp simd reduction(+ : acc)
        for (int64_t q = 0; q < R; ++q) {
          acc += wj[q] * pj[q];
          gj[q] += cf * pj[q];
        }
      }
      gc[t * K + k] += acc;
    }
  }
}

template void forward_batched<float>(const Setup<float>&, const ForwardArgs<float>&, int64_t, int64_t);
template void forward_batched<double>(const Setup<double>&, const ForwardArgs<double>&, int64_t, int64_t);
template void backward_batched<float>(const Setup<float>&, const BackwardArgs<float>&, int64_t, int64_t, float*,
                                      float*);
template void backward_batched<double>(const Setup<double>&, const BackwardArgs<double>&, int64_t, int64_t, double*,
                                       double*);

}  // namespace hm::fru_cpu
