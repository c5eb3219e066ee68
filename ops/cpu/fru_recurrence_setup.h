// Shared pieces of the CPU FRU/SRU recurrence kernels (ops/cpu/fru_recurrence.cpp, ops/cpu/fru_recurrence_batched.cpp):
// the channels grouped by decay with the per-step products M_g,t, and the
// step loops of the two formulations (see ops/cpu/fru_recurrence.cpp for the algebra).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/ops/cpu/gemm_rows.h"

namespace hm::fru_cpu {

// Channels grouped by decay value, and what every pass derives from w_r and coef.
template <class T>
struct Setup {
  int64_t steps, B, d, R, K, S, G;
  int64_t tm;                  // time slices of M: 1 when coef is the same at every step (SRU), else steps
  bool batched;                // the per-step GEMM formulation (fru_batched.cpp) instead of per-row loops
  std::vector<T> a;            // (G) decay of each group
  std::vector<int64_t> group;  // (K) group of each channel
  std::vector<T> m_t;          // per-row: (G, tm, d, R) M_g,t transposed; batched: (tm, d, G, R)
  std::vector<T> w_g;          // (G, R, S): w_r with the other groups' channels zeroed (G > 1)
  std::vector<T> w_k;          // (K, d, R): w_r[:, k, j] per channel

  Setup(int64_t steps, int64_t B, int64_t d, const T* w_r, int64_t R, const T* coef, const T* decay, int64_t K);
  // M_g,t as (d, R) (per-row layout) or [M_1,t .. M_G,t] as (d, G*R) (batched layout).
  const T* m_of(int64_t g, int64_t t) const {
    const int64_t ts = tm == 1 ? 0 : t;
    return batched ? m_t.data() + ts * d * G * R : m_t.data() + (g * tm + ts) * d * R;
  }
  // w_r restricted to group g's channels (R, S).
  const T* w_of(int64_t g, const T* w_r) const { return G == 1 ? w_r : w_g.data() + g * R * S; }
  // x (B, S) restricted to group g's channels, into buf (returns x itself when G == 1).
  const T* mask(int64_t g, const T* x, std::vector<T>& buf) const;
  // decay_k^n in double (a^0 = 1, also for a = 0).
  T power(int64_t k, int64_t n) const { return T(std::pow(double(a[group[k]]), double(n))); }
};

// Pointers of one forward pass; z (B, G, R) holds z_g = mu_g w_r,g^T, from mu0.
template <class T>
struct ForwardArgs {
  const T *px, *b_r, *w_pr, *coef, *decay, *mu0;  // (T,B,d) (R) (d,R) (T,K) (K) (B,S)
  T *mu, *r, *phi;                                // (T,B,S) or unused, (T,B,R), (T,B,d)
  T* z;                                           // (B, G, R)
  bool all_steps;
};

// Pointers of one backward pass. A (B, G, R) starts at zero; U (B, S) (all_steps) starts at
// zero. Last step only: g_last (K, B, d) is d mu_{T-1} channel-major and pw (T, K) holds
// decay_k^(T-1-t).
template <class T>
struct BackwardArgs {
  const T *g_mu, *w_pr, *coef, *decay, *r, *phi, *g_last, *pw;
  T *g_px, *A, *U, *dsum;  // (T,B,d) (B,G,R) (B,S) (B,R)
  bool all_steps;
};

// The upstream d mu's terms at step t for rows [b0, b1): dp (b1 - b0, d) = sum_k coef[t, k] u_k
// and gc[t, k] += <u_k, phi_t>, where u = U_t = decay U_t+1 + g_mu_t (all_steps; U updated in
// place), or u_k = decay_k^(T-1-t) d mu_{T-1}[:, k, :] (last step only; vectorised over the
// rows' n*d entries, which small d such as the FRU's 10 needs).
template <class T>
void upstream(const Setup<T>& s, const BackwardArgs<T>& f, int64_t t, int64_t b0, int64_t b1, T* dp, T* gc) {
  const int64_t K = s.K, d = s.d, S = s.S, nd = (b1 - b0) * d;
  const T* ct = f.coef + t * K;
  const T* pt = f.phi + (t * s.B + b0) * d;
  std::fill(dp, dp + nd, T(0));
  if (!f.all_steps) {
    const T* pw = f.pw + t * K;
    for (int64_t k = 0; k < K; ++k) {
      const T* gk = f.g_last + (k * s.B + b0) * d;
      const T cf = ct[k] * pw[k];
      T h = T(0);
#pragma omp simd reduction(+ : h)
      for (int64_t i = 0; i < nd; ++i) {
        dp[i] += cf * gk[i];
        h += gk[i] * pt[i];
      }
      gc[t * K + k] += pw[k] * h;
    }
    return;
  }
  for (int64_t b = b0; b < b1; ++b) {
    T* ub = f.U + b * S;
    const T* gb = f.g_mu + (t * s.B + b) * S;
    const T* pb = pt + (b - b0) * d;
    T* db = dp + (b - b0) * d;
    for (int64_t k = 0; k < K; ++k) {
      const T m = f.decay[k], cf = ct[k];
      T h = T(0);
#pragma omp simd reduction(+ : h)
      for (int64_t j = 0; j < d; ++j) {
        ub[k * d + j] = m * ub[k * d + j] + gb[k * d + j];
        db[j] += cf * ub[k * d + j];
        h += ub[k * d + j] * pb[j];
      }
      gc[t * K + k] += h;
    }
  }
}

// Runs every step for batch rows [b0, b1): per-row loops, or per-step GEMMs over the rows.
template <class T>
void forward_rows(const Setup<T>& s, const ForwardArgs<T>& f, int64_t b0, int64_t b1);
template <class T>
void forward_batched(const Setup<T>& s, const ForwardArgs<T>& f, int64_t b0, int64_t b1);
// Backward steps T-1..0 for rows [b0, b1), adding this chunk's d coef into gc (T, K) and its
// d w_r into gw (K, d, R).
template <class T>
void backward_rows(const Setup<T>& s, const BackwardArgs<T>& f, int64_t b0, int64_t b1, T* gc, T* gw);
template <class T>
void backward_batched(const Setup<T>& s, const BackwardArgs<T>& f, int64_t b0, int64_t b1, T* gc, T* gw);

}  // namespace hm::fru_cpu
