// CPU kernels of the fused FRU/SRU recurrence (ops/fru_kernels.h). Each step is two small
// GEMMs (through the threaded gemm slot) plus elementwise work parallel over the batch; the
// backward keeps the per-step pre-activation gradients of r so the weight gradients become
// one GEMM over all T*B rows instead of T small ones.
#include <vector>

#include "core/parallel.h"
#include "ops/fru_kernels.h"
#include "ops/linalg_kernels.h"

namespace hm {
namespace {

// C (m, n) = alpha op(A) op(B) + beta C (+ bias), all row-major with natural leading dims.
template <class T>
void gemm(int64_t m, int64_t n, int64_t k, const T* a, bool ta, const T* b, bool tb, T* c, double beta,
          const T* bias = nullptr) {
  GemmDesc g;
  g.dtype = dtype_of<T>();
  g.m = m, g.n = n, g.k = k;
  g.trans_a = ta, g.trans_b = tb;
  g.a = a, g.lda = ta ? m : k;
  g.b = b, g.ldb = tb ? k : n;
  g.c = c, g.ldc = n;
  g.beta = beta;
  g.bias = bias;
  gemm_kernel(Device::cpu(), g);
}

template <class T>
void forward_typed(const Tensor& px_t, const Tensor& w_r_t, const Tensor& b_r_t, const Tensor& w_pr_t,
                   const Tensor& coef_t, const Tensor& decay_t, const Tensor& mu0_t, const Tensor& mu_t,
                   const Tensor& r_t, const Tensor& phi_t) {
  const int64_t steps = px_t.size(0), B = px_t.size(1), d = px_t.size(2), R = w_r_t.size(0), K = decay_t.size(0);
  const int64_t S = K * d;
  const T *px = px_t.data<T>(), *w_r = w_r_t.data<T>(), *b_r = b_r_t.data<T>(), *w_pr = w_pr_t.data<T>();
  const T *coef = coef_t.data<T>(), *decay = decay_t.data<T>(), *mu0 = mu0_t.data<T>();
  T *mu = mu_t.data<T>(), *r = r_t.data<T>(), *phi = phi_t.data<T>();
  for (int64_t t = 0; t < steps; ++t) {
    const T* prev = t == 0 ? mu0 : mu + (t - 1) * B * S;  // (B, S)
    T* rt = r + t * B * R;                                // (B, R)
    T* pt = phi + t * B * d;                              // (B, d)
    T* mt = mu + t * B * S;                               // (B, S)
    const T* ct = coef + t * K;
    gemm<T>(B, R, S, prev, false, w_r, true, rt, 0.0, b_r);
    parallel_for(B, R + d + S, [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0 * R; i < b1 * R; ++i) rt[i] = rt[i] > T(0) ? rt[i] : T(0);
    });
    // phi pre-activation: px_t + r_t w_pr^T (d is small, so a plain loop beats a GEMM call)
    parallel_for(B, R * d + S, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const T* rb = rt + b * R;
        T* pb = pt + b * d;
        for (int64_t j = 0; j < d; ++j) {
          const T* wj = w_pr + j * R;
          T acc = px[(t * B + b) * d + j];
#pragma omp simd reduction(+ : acc)
          for (int64_t q = 0; q < R; ++q) acc += wj[q] * rb[q];
          pb[j] = acc > T(0) ? acc : T(0);
        }
        const T* pv = prev + b * S;
        T* mb = mt + b * S;
        for (int64_t k = 0; k < K; ++k) {
          const T m = decay[k], c = ct[k];
#pragma omp simd
          for (int64_t j = 0; j < d; ++j) mb[k * d + j] = m * pv[k * d + j] + c * pb[j];
        }
      }
    });
  }
}

template <class T>
void backward_typed(const Tensor& g_mu_t, const Tensor& w_r_t, const Tensor& w_pr_t, const Tensor& coef_t,
                    const Tensor& decay_t, const Tensor& mu0_t, const Tensor& mu_t, const Tensor& r_t,
                    const Tensor& phi_t, const Tensor& g_px_t, const Tensor& g_w_r_t, const Tensor& g_b_r_t,
                    const Tensor& g_w_pr_t, const Tensor& g_coef_t, const Tensor& g_mu0_t) {
  const int64_t steps = g_mu_t.size(0), B = g_mu_t.size(1), d = phi_t.size(2), R = w_r_t.size(0), K = decay_t.size(0);
  const int64_t S = K * d;
  const T *g_mu = g_mu_t.data<T>(), *w_r = w_r_t.data<T>(), *w_pr = w_pr_t.data<T>(), *coef = coef_t.data<T>();
  const T *decay = decay_t.data<T>(), *mu0 = mu0_t.data<T>(), *mu = mu_t.data<T>(), *r = r_t.data<T>();
  const T* phi = phi_t.data<T>();
  T *g_px = g_px_t.data<T>(), *g_w_r = g_w_r_t.data<T>(), *g_b_r = g_b_r_t.data<T>(), *g_w_pr = g_w_pr_t.data<T>();
  T *g_coef = g_coef_t.data<T>(), *carry = g_mu0_t.data<T>();  // carry ends as d loss / d mu0

  std::vector<T> g(B * S), da_r(steps * B * R), dr(B * R);
  std::fill(carry, carry + B * S, T(0));
  for (int64_t t = steps - 1; t >= 0; --t) {
    const T* gt = g_mu + t * B * S;
    const T* pt = phi + t * B * d;
    const T* rt = r + t * B * R;
    const T* ct = coef + t * K;
    T* dpt = g_px + t * B * d;
    T* dat = da_r.data() + t * B * R;
    // g = total gradient of mu_t; d phi; d px = d phi pre-activation; d r; carry = decay * g
    parallel_for(B, S + R * d, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        T* gb = g.data() + b * S;
        T* cb = carry + b * S;
        const T* gtb = gt + b * S;
#pragma omp simd
        for (int64_t i = 0; i < S; ++i) gb[i] = gtb[i] + cb[i];
        T* dp = dpt + b * d;
        for (int64_t j = 0; j < d; ++j) dp[j] = T(0);
        for (int64_t k = 0; k < K; ++k) {
          const T c = ct[k], m = decay[k];
#pragma omp simd
          for (int64_t j = 0; j < d; ++j) {
            dp[j] += c * gb[k * d + j];
            cb[k * d + j] = m * gb[k * d + j];
          }
        }
        const T* pb = pt + b * d;
        for (int64_t j = 0; j < d; ++j) dp[j] = pb[j] > T(0) ? dp[j] : T(0);
        const T* rb = rt + b * R;
        T* db = dat + b * R;
        for (int64_t q = 0; q < R; ++q) db[q] = T(0);
        for (int64_t j = 0; j < d; ++j) {
          const T dj = dp[j];
          const T* wj = w_pr + j * R;
#pragma omp simd
          for (int64_t q = 0; q < R; ++q) db[q] += dj * wj[q];
        }
        for (int64_t q = 0; q < R; ++q) db[q] = rb[q] > T(0) ? db[q] : T(0);
      }
    });
    // d coef[t, k] = sum_b sum_j g[b, k, j] phi[b, j]
    parallel_for(K, B * d, [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        T acc = T(0);
        for (int64_t b = 0; b < B; ++b) {
          const T* gb = g.data() + b * S + k * d;
          const T* pb = pt + b * d;
#pragma omp simd reduction(+ : acc)
          for (int64_t j = 0; j < d; ++j) acc += gb[j] * pb[j];
        }
        g_coef[t * K + k] = acc;
      }
    });
    // carry += d r_pre w_r   (B, R) x (R, S)
    gemm<T>(B, S, R, dat, false, w_r, false, carry, 1.0);
  }
  // Weight gradients over all steps at once. Rows of step t pair with mu_{t-1}.
  gemm<T>(R, S, B, da_r.data(), true, mu0, false, g_w_r, 0.0);
  if (steps > 1) gemm<T>(R, S, (steps - 1) * B, da_r.data() + B * R, true, mu, false, g_w_r, 1.0);
  gemm<T>(d, R, steps * B, g_px, true, r, false, g_w_pr, 0.0);
  for (int64_t q = 0; q < R; ++q) g_b_r[q] = T(0);
  for (int64_t i = 0; i < steps * B; ++i) {
    const T* row = da_r.data() + i * R;
#pragma omp simd
    for (int64_t q = 0; q < R; ++q) g_b_r[q] += row[q];
  }
}

void cpu_fru_forward(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                     const Tensor& decay, const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi) {
  dispatch_float(px.dtype(), "fru_forward",
                 [&]<class T>() { forward_typed<T>(px, w_r, b_r, w_pr, coef, decay, mu0, mu, r, phi); });
}

void cpu_fru_backward(const Tensor& g_mu, const Tensor& w_r, const Tensor& w_pr, const Tensor& coef,
                      const Tensor& decay, const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi,
                      const Tensor& g_px, const Tensor& g_w_r, const Tensor& g_b_r, const Tensor& g_w_pr,
                      const Tensor& g_coef, const Tensor& g_mu0) {
  dispatch_float(g_mu.dtype(), "fru_backward", [&]<class T>() {
    backward_typed<T>(g_mu, w_r, w_pr, coef, decay, mu0, mu, r, phi, g_px, g_w_r, g_b_r, g_w_pr, g_coef, g_mu0);
  });
}

[[maybe_unused]] const bool registered = [] {
  fru_forward_kernel.cpu = cpu_fru_forward;
  fru_backward_kernel.cpu = cpu_fru_backward;
  return true;
}();

}  // namespace
}  // namespace hm
