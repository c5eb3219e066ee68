// CPU kernels of the fused FRU/SRU recurrence (ops/fru_kernels.h).
//
// The state update is linear, so the products with w_r never need the (B, K*d) state: group
// the channels by decay value a_g (FRU: two groups, 0 for the masked f = 0 slot and 1) and
// keep z_g = mu_g w_r,g^T (B, R) instead, which obeys
//   z_g,t = a_g z_g,t-1 + phi_t M_g,t^T,   M_g,t[:, j] = sum_{k in g} coef[t, k] w_r[:, k, j]  (R, d).
// A step then costs O(B R d G) instead of the O(B R K d) GEMM of mu_{t-1} w_r^T (60x fewer
// multiply-adds at the pixel-MNIST shapes). The backward runs the adjoint of the same
// identity: with A_g,t = a_g A_g,t+1 + da_t+1 (the decayed sum of later r pre-activation
// gradients) and U the decayed sum of the upstream d mu,
//   d mu_t[:, k, :] = A_g(k),t w_r[:, k, :] + U_t[:, k, :],
// so d phi, d coef and d w_r (= sum_s coef[s, k] A_s^T phi_s, plus the mu0 term) follow from
// A, U and P_g,t = A_g,t^T phi_t (R x d) without the T*B*K*d states. The same algebra as the
// composition, only summed in another order (the tests compare both and gradcheck).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "ops/cpu/gemm_rows.h"
#include "ops/fru_kernels.h"

namespace hm {
namespace {

// Channels grouped by decay value, and what every pass derives from w_r and coef.
template <class T>
struct Setup {
  int64_t steps, B, d, R, K, S, G;
  std::vector<T> a;            // (G) decay of each group
  std::vector<int64_t> group;  // (K) group of each channel
  std::vector<T> coef_g;       // (G, T, K): coef with the other groups' channels zeroed
  std::vector<T> m_t;          // (G, T, d, R): M_g,t transposed, so steps vectorise over R
  std::vector<T> w_g;          // (G, R, S): w_r with the other groups' channels zeroed (G > 1)
  std::vector<T> w_k;          // (K, d, R): w_r[:, k, j] per channel

  Setup(int64_t steps_, int64_t B_, int64_t d_, const T* w_r, int64_t R_, const T* coef, const T* decay, int64_t K_)
      : steps(steps_), B(B_), d(d_), R(R_), K(K_), S(K_ * d_) {
    for (int64_t k = 0; k < K; ++k) {
      int64_t g = 0;
      while (g < int64_t(a.size()) && a[g] != decay[k]) ++g;
      if (g == int64_t(a.size())) a.push_back(decay[k]);
      group.push_back(g);
    }
    G = int64_t(a.size());
    coef_g.assign(G * steps * K, T(0));
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t k = 0; k < K; ++k) coef_g[(group[k] * steps + t) * K + k] = coef[t * K + k];
    // w_r as (K, d*R) with [k][j*R + r] = w_r[r, k*d + j], then M_g = coef_g (T, K) x that.
    w_k.resize(K * d * R);
    for (int64_t r = 0; r < R; ++r)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < d; ++j) w_k[(k * d + j) * R + r] = w_r[r * S + k * d + j];
    m_t.resize(G * steps * d * R);
    for (int64_t g = 0; g < G; ++g)
      gemm_rows<T>(steps, d * R, K, coef_g.data() + g * steps * K, false, w_k.data(), false,
                   m_t.data() + g * steps * d * R, 0.0);
    if (G > 1) {
      w_g.assign(G * R * S, T(0));
      for (int64_t r = 0; r < R; ++r)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < d; ++j) w_g[(group[k] * R + r) * S + k * d + j] = w_r[r * S + k * d + j];
    }
  }
  // w_r restricted to group g's channels (R, S).
  const T* w_of(int64_t g, const T* w_r) const { return G == 1 ? w_r : w_g.data() + g * R * S; }
  // x (B, S) restricted to group g's channels, into buf (returns x itself when G == 1).
  const T* mask(int64_t g, const T* x, std::vector<T>& buf) const {
    if (G == 1) return x;
    buf.assign(B * S, T(0));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k)
        if (group[k] == g)
          for (int64_t j = 0; j < d; ++j) buf[b * S + k * d + j] = x[b * S + k * d + j];
    return buf.data();
  }
  // decay_k^n in double (a^0 = 1, also for a = 0).
  T power(int64_t k, int64_t n) const { return T(std::pow(double(a[group[k]]), double(n))); }
};

template <class T>
void forward_typed(const Tensor& px_t, const Tensor& w_r_t, const Tensor& b_r_t, const Tensor& w_pr_t,
                   const Tensor& coef_t, const Tensor& decay_t, const Tensor& mu0_t, const Tensor& mu_t,
                   const Tensor& r_t, const Tensor& phi_t) {
  const int64_t steps = px_t.size(0), B = px_t.size(1), d = px_t.size(2), R = w_r_t.size(0), K = decay_t.size(0);
  const T *px = px_t.data<T>(), *w_r = w_r_t.data<T>(), *b_r = b_r_t.data<T>(), *w_pr = w_pr_t.data<T>();
  const T *coef = coef_t.data<T>(), *decay = decay_t.data<T>(), *mu0 = mu0_t.data<T>();
  T *mu = mu_t.data<T>(), *r = r_t.data<T>(), *phi = phi_t.data<T>();
  const Setup<T> s(steps, B, d, w_r, R, coef, decay, K);
  const int64_t S = s.S, G = s.G;
  const bool all_steps = mu_t.size(0) == steps;  // else only mu_{T-1} (1, B, S)

  std::vector<T> z(G * B * R), buf;  // z_g (B, R) per group, from mu0
  for (int64_t g = 0; g < G; ++g)
    gemm_rows<T>(B, R, S, s.mask(g, mu0, buf), false, w_r, true, z.data() + g * B * R, 0.0);
  // Batch rows are independent through time: one parallel region, each thread runs all steps
  // of its rows (no per-step barriers).
  parallel_for(B, steps * (R * d * (G + 1) + (all_steps ? S : 0)), [&](int64_t b0, int64_t b1) {
    for (int64_t t = 0; t < steps; ++t) {
      const T* prev = t == 0 ? mu0 : mu + (t - 1) * B * S;  // (B, S), all_steps only
      const T* ct = coef + t * K;
      for (int64_t b = b0; b < b1; ++b) {
        T* rb = r + (t * B + b) * R;  // r_t = relu(b_r + sum_g z_g,t-1)
        for (int64_t q = 0; q < R; ++q) rb[q] = b_r[q];
        for (int64_t g = 0; g < G; ++g) {
          const T* zb = z.data() + (g * B + b) * R;
#pragma omp simd
          for (int64_t q = 0; q < R; ++q) rb[q] += zb[q];
        }
#pragma omp simd
        for (int64_t q = 0; q < R; ++q) rb[q] = rb[q] > T(0) ? rb[q] : T(0);
        T* pb = phi + (t * B + b) * d;  // phi_t = relu(px_t + r_t w_pr^T)
        for (int64_t j = 0; j < d; ++j) {
          const T* wj = w_pr + j * R;
          T acc = T(0);
#pragma omp simd reduction(+ : acc)
          for (int64_t q = 0; q < R; ++q) acc += wj[q] * rb[q];
          acc += px[(t * B + b) * d + j];
          pb[j] = acc > T(0) ? acc : T(0);
        }
        for (int64_t g = 0; g < G; ++g) {  // z_g,t = a_g z_g,t-1 + phi_t M_g,t^T
          T* zb = z.data() + (g * B + b) * R;
          const T* mg = s.m_t.data() + (g * steps + t) * d * R;
          const T ag = s.a[g];
#pragma omp simd
          for (int64_t q = 0; q < R; ++q) zb[q] *= ag;
          for (int64_t j = 0; j < d; ++j) {
            const T pj = pb[j];
            const T* mj = mg + j * R;
#pragma omp simd
            for (int64_t q = 0; q < R; ++q) zb[q] += pj * mj[q];
          }
        }
        if (!all_steps) continue;
        const T* pv = prev + b * S;
        T* mb = mu + (t * B + b) * S;
        for (int64_t k = 0; k < K; ++k) {
          const T m = decay[k], c = ct[k];
#pragma omp simd
          for (int64_t j = 0; j < d; ++j) mb[k * d + j] = m * pv[k * d + j] + c * pb[j];
        }
      }
    }
  });
  if (all_steps) return;
  // mu_{T-1}[b, k, :] = a_k^T mu0[b, k, :] + sum_s a_k^(T-1-s) coef[s, k] phi_s[b, :]: one GEMM.
  std::vector<T> w(steps * K), acc(K * B * d);
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t k = 0; k < K; ++k) w[t * K + k] = coef[t * K + k] * s.power(k, steps - 1 - t);
  gemm_rows<T>(K, B * d, steps, w.data(), true, phi, false, acc.data(), 0.0);  // (K, B*d)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < K; ++k) {
      const T p = s.power(k, steps);
      for (int64_t j = 0; j < d; ++j) mu[b * S + k * d + j] = p * mu0[b * S + k * d + j] + acc[(k * B + b) * d + j];
    }
}

template <class T>
void backward_typed(const Tensor& g_mu_t, const Tensor& w_r_t, const Tensor& w_pr_t, const Tensor& coef_t,
                    const Tensor& decay_t, const Tensor& mu0_t, const Tensor& r_t, const Tensor& phi_t,
                    const Tensor& g_px_t, const Tensor& g_w_r_t, const Tensor& g_b_r_t, const Tensor& g_w_pr_t,
                    const Tensor& g_coef_t, const Tensor& g_mu0_t) {
  const int64_t steps = phi_t.size(0), B = phi_t.size(1), d = phi_t.size(2), R = w_r_t.size(0), K = decay_t.size(0);
  const T *g_mu = g_mu_t.data<T>(), *w_r = w_r_t.data<T>(), *w_pr = w_pr_t.data<T>(), *coef = coef_t.data<T>();
  const T *decay = decay_t.data<T>(), *mu0 = mu0_t.data<T>(), *r = r_t.data<T>(), *phi = phi_t.data<T>();
  T *g_px = g_px_t.data<T>(), *g_w_r = g_w_r_t.data<T>(), *g_b_r = g_b_r_t.data<T>(), *g_w_pr = g_w_pr_t.data<T>();
  T *g_coef = g_coef_t.data<T>(), *g_mu0 = g_mu0_t.data<T>();
  const Setup<T> s(steps, B, d, w_r, R, coef, decay, K);
  const int64_t S = s.S, G = s.G, RD = R * d;
  const bool all_steps = g_mu_t.size(0) == steps;  // else d mu_{T-1} only (1, B, S)

  std::vector<T> A(G * B * R, T(0)), dsum(B * R, T(0)), U, dphi_u;
  std::fill(g_coef, g_coef + steps * K, T(0));
  if (all_steps) {
    U.assign(B * S, T(0));  // decayed sum of the upstream d mu
  } else {
    // The upstream part is U_t = a^(T-1-t) g_mu: its d phi and d coef terms as two GEMMs.
    std::vector<T> gl(K * B * d), w(steps * K), q(steps * K);  // gl: g_mu as (K, B*d)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < d; ++j) gl[(k * B + b) * d + j] = g_mu[b * S + k * d + j];
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t k = 0; k < K; ++k) w[t * K + k] = coef[t * K + k] * s.power(k, steps - 1 - t);
    dphi_u.resize(steps * B * d);
    gemm_rows<T>(steps, B * d, K, w.data(), false, gl.data(), false, dphi_u.data(), 0.0);  // (T, B*d)
    gemm_rows<T>(steps, K, B * d, phi, false, gl.data(), true, q.data(), 0.0);             // (T, K)
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t k = 0; k < K; ++k) g_coef[t * K + k] = q[t * K + k] * s.power(k, steps - 1 - t);
  }

  // Rows are independent through time except for the sums over rows in d coef and d w_r: each
  // chunk of rows runs all steps in one parallel region and keeps its own partial sums, added
  // in chunk order afterwards (no per-step barriers).
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), B));
  std::vector<T> coef_part(chunks * steps * K, T(0)), gwk_part(chunks * K * RD, T(0));
  const int64_t row_cost = steps * (RD * (G + 2) + (all_steps ? 3 * S : 0));
  parallel_for(chunks, (B / chunks) * row_cost, [&](int64_t c0, int64_t c1) {
    std::vector<T> dp(d), da(R), pt_g(G * RD);  // pt_g: this chunk's P_g,t = A_g,t^T phi_t, (d, R)
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t b0 = B * c / chunks, b1 = B * (c + 1) / chunks;
      T* gc = coef_part.data() + c * steps * K;
      T* gw = gwk_part.data() + c * K * RD;
      for (int64_t t = steps - 1; t >= 0; --t) {
        const T* pt = phi + t * B * d;
        const T* ct = coef + t * K;
        std::fill(pt_g.begin(), pt_g.end(), T(0));
        for (int64_t b = b0; b < b1; ++b) {
          const T* pb = pt + b * d;
          if (all_steps) {  // U_t = a U_t+1 + g_mu_t; its d phi and d coef terms
            T* ub = U.data() + b * S;
            const T* gb = g_mu + (t * B + b) * S;
            for (int64_t j = 0; j < d; ++j) dp[j] = T(0);
            for (int64_t k = 0; k < K; ++k) {
              const T m = decay[k], cf = ct[k];
              T h = T(0);
#pragma omp simd reduction(+ : h)
              for (int64_t j = 0; j < d; ++j) {
                ub[k * d + j] = m * ub[k * d + j] + gb[k * d + j];
                dp[j] += cf * ub[k * d + j];
                h += ub[k * d + j] * pb[j];
              }
              gc[t * K + k] += h;
            }
          } else {
            for (int64_t j = 0; j < d; ++j) dp[j] = dphi_u[(t * B + b) * d + j];
          }
          for (int64_t g = 0; g < G; ++g) {  // + sum_g A_g,t M_g,t, and P_g,t += phi_t[b] x A_g,t[b]
            const T* ab = A.data() + (g * B + b) * R;
            const T* mg = s.m_t.data() + (g * steps + t) * d * R;
            T* pg = pt_g.data() + g * RD;
            for (int64_t j = 0; j < d; ++j) {
              const T* mj = mg + j * R;
              T* pj = pg + j * R;
              const T phj = pb[j];
              T acc = T(0);
#pragma omp simd reduction(+ : acc)
              for (int64_t q = 0; q < R; ++q) {
                acc += ab[q] * mj[q];
                pj[q] += phj * ab[q];
              }
              dp[j] += acc;
            }
          }
          T* dpx = g_px + (t * B + b) * d;  // d of phi's pre-activation
          for (int64_t j = 0; j < d; ++j) dpx[j] = dp[j] = pb[j] > T(0) ? dp[j] : T(0);
          for (int64_t q = 0; q < R; ++q) da[q] = T(0);  // da_t = (dpx w_pr) masked by r_t > 0
          for (int64_t j = 0; j < d; ++j) {
            const T dj = dp[j];
            const T* wj = w_pr + j * R;
#pragma omp simd
            for (int64_t q = 0; q < R; ++q) da[q] += dj * wj[q];
          }
          const T* rb = r + (t * B + b) * R;
          T* sb = dsum.data() + b * R;
#pragma omp simd
          for (int64_t q = 0; q < R; ++q) {
            da[q] = rb[q] > T(0) ? da[q] : T(0);
            sb[q] += da[q];
          }
          for (int64_t g = 0; g < G; ++g) {  // A_g,t-1 = a_g A_g,t + da_t
            T* ab = A.data() + (g * B + b) * R;
            const T ag = s.a[g];
#pragma omp simd
            for (int64_t q = 0; q < R; ++q) ab[q] = ag * ab[q] + da[q];
          }
        }
        // d coef[t, k] += <w_r[:, k, :], P_g(k),t>;  d w_r[:, k, :] += coef[t, k] P_g(k),t
        for (int64_t k = 0; k < K; ++k) {
          const T* pg = pt_g.data() + s.group[k] * RD;
          const T* wk = s.w_k.data() + k * RD;
          T* gwk = gw + k * RD;
          const T cf = ct[k];
          T acc = T(0);
#pragma omp simd reduction(+ : acc)
          for (int64_t i = 0; i < RD; ++i) {
            acc += wk[i] * pg[i];
            gwk[i] += cf * pg[i];
          }
          gc[t * K + k] += acc;
        }
      }
    }
  });
  for (int64_t c = 0; c < chunks; ++c) {
    const T* gc = coef_part.data() + c * steps * K;
    for (int64_t i = 0; i < steps * K; ++i) g_coef[i] += gc[i];
  }
  std::vector<T> gwk(K * RD, T(0)), buf;  // d w_r as (K, d, R)
  for (int64_t c = 0; c < chunks; ++c) {
    const T* gw = gwk_part.data() + c * K * RD;
    for (int64_t i = 0; i < K * RD; ++i) gwk[i] += gw[i];
  }
  for (int64_t r0 = 0; r0 < R; ++r0)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < d; ++j) g_w_r[r0 * S + k * d + j] = gwk[(k * d + j) * R + r0];
  // A_g now holds A_g,-1 = sum_t a_g^t da_t: the mu0 terms of d w_r and d mu0.
  if (all_steps) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < d; ++j) g_mu0[b * S + k * d + j] = decay[k] * U[b * S + k * d + j];
  } else {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k) {
        const T p = s.power(k, steps);
        for (int64_t j = 0; j < d; ++j) g_mu0[b * S + k * d + j] = p * g_mu[b * S + k * d + j];
      }
  }
  for (int64_t g = 0; g < G; ++g) {
    gemm_rows<T>(R, S, B, A.data() + g * B * R, true, s.mask(g, mu0, buf), false, g_w_r, 1.0);
    gemm_rows<T>(B, S, R, A.data() + g * B * R, false, s.w_of(g, w_r), false, g_mu0, 1.0);
  }
  gemm_rows<T>(d, R, steps * B, g_px, true, r, false, g_w_pr, 0.0);
  for (int64_t q = 0; q < R; ++q) g_b_r[q] = T(0);
  for (int64_t b = 0; b < B; ++b)
#pragma omp simd
    for (int64_t q = 0; q < R; ++q) g_b_r[q] += dsum[b * R + q];
}

void cpu_fru_forward(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                     const Tensor& decay, const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi) {
  dispatch_float(px.dtype(), "fru_forward",
                 [&]<class T>() { forward_typed<T>(px, w_r, b_r, w_pr, coef, decay, mu0, mu, r, phi); });
}

void cpu_fru_backward(const Tensor& g_mu, const Tensor& w_r, const Tensor& w_pr, const Tensor& coef,
                      const Tensor& decay, const Tensor& mu0, const Tensor& /*mu: not needed here*/, const Tensor& r,
                      const Tensor& phi, const Tensor& g_px, const Tensor& g_w_r, const Tensor& g_b_r,
                      const Tensor& g_w_pr, const Tensor& g_coef, const Tensor& g_mu0) {
  dispatch_float(g_mu.dtype(), "fru_backward", [&]<class T>() {
    backward_typed<T>(g_mu, w_r, w_pr, coef, decay, mu0, r, phi, g_px, g_w_r, g_b_r, g_w_pr, g_coef, g_mu0);
  });
}

[[maybe_unused]] const bool registered = [] {
  fru_forward_kernel.cpu = cpu_fru_forward;
  fru_backward_kernel.cpu = cpu_fru_backward;
  return true;
}();

}  // namespace
}  // namespace hm
