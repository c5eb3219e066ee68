// CPU kernels of the fused FRU/SRU recurrence (ops/fru_recurrence_kernels.h).
//
// The state update is linear, so the products with w_r never need the (B, K*d) state: group
// the channels by decay value a_g (FRU: two groups, 0 for the masked f = 0 slot and 1) and
// keep z_g = mu_g w_r,g^T (B, R) instead, which obeys
//   z_g,t = a_g z_g,t-1 + phi_t M_g,t^T,   M_g,t[:, j] = sum_{k in g} coef[t, k] w_r[:, k, j]  (R, d).
// A step then costs O(B R d G) instead of the O(B R K d) GEMM of mu_{t-1} w_r^T (60x fewer
// multiply-adds at the pixel-MNIST shapes; the same count when every channel has its own decay,
// as in the SRU, where it still saves the states). The backward runs the adjoint of the same
// identity: with A_g,t = a_g A_g,t+1 + da_t+1 (the decayed sum of later r pre-activation
// gradients) and U the decayed sum of the upstream d mu,
//   d mu_t[:, k, :] = A_g(k),t w_r[:, k, :] + U_t[:, k, :],
// so d phi, d coef and d w_r (= sum_s coef[s, k] A_s^T phi_s, plus the mu0 term) follow from
// A, U and P_g,t = A_g,t^T phi_t (R x d) without the T*B*K*d states. The same algebra as the
// composition, only summed in another order (the tests compare both and gradcheck).
//
// Two formulations of the step loop, chosen by shape (use_batched): per-row loops (this file),
// which read M_t = [M_1,t .. M_G,t] once per row and step, fine for a few rows when M_t fits
// L1 (FRU_{60,10}: 2*10*60 = 1,200 entries); and per-step GEMMs over a thread's rows
// (fru_batched.cpp), which read it once per step: the SRU's M_t (5*200*60 = 60,000 entries)
// made the per-row loops L2-bound, ~4x slower than the GEMMs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/fru_recurrence_setup.h"
#include "harmonic/ops/fru_recurrence_kernels.h"

namespace hm::fru_cpu {

// Per-step GEMMs over the rows once a thread has enough rows to share the read of M_t, or when
// M_t (a row's G*d*R multiply-adds per step) is too big for L1 anyway. Measured on 1 thread,
// forward_last + backward (ms), rows / GEMMs: FRU_{60,10} B 256 T 196: 55 / 27; T 784:
// 232 / 137; SRU B 256 T 196: 1,750 / 390; and on a busier machine FRU T 784 B 16: 34 / 33,
// B 4: 20 / 33 (the rows win).
bool use_batched(int64_t B, int64_t G, int64_t d, int64_t R) {
  return G * d * R > 4096 || B / std::max(1, get_num_threads()) >= 16;
}

template <class T>
Setup<T>::Setup(int64_t steps_, int64_t B_, int64_t d_, const T* w_r, int64_t R_, const T* coef, const T* decay,
                int64_t K_)
    : steps(steps_), B(B_), d(d_), R(R_), K(K_), S(K_ * d_) {
  for (int64_t k = 0; k < K; ++k) {
    int64_t g = 0;
    while (g < int64_t(a.size()) && a[g] != decay[k]) ++g;
    if (g == int64_t(a.size())) a.push_back(decay[k]);
    group.push_back(g);
  }
  G = int64_t(a.size());
  batched = use_batched(B, G, d, R);
  tm = 1;  // coef constant in time (SRU): one M_g for all steps
  for (int64_t t = 1; t < steps && tm == 1; ++t)
    for (int64_t k = 0; k < K; ++k)
      if (coef[t * K + k] != coef[k]) tm = steps;
  // w_r as (K, d*R) with [k][j*R + r] = w_r[r, k*d + j], then M_g = coef_g (tm, K) x that,
  // coef_g: coef with the other groups' channels zeroed.
  w_k.resize(K * d * R);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < d; ++j) w_k[(k * d + j) * R + r] = w_r[r * S + k * d + j];
  m_t.resize(G * tm * d * R);
  std::vector<T> coef_g(tm * K), one(batched ? tm * d * R : 0);
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t t = 0; t < tm; ++t)
      for (int64_t k = 0; k < K; ++k) coef_g[t * K + k] = group[k] == g ? coef[t * K + k] : T(0);
    T* out = batched ? one.data() : m_t.data() + g * tm * d * R;
    gemm_rows<T>(tm, d * R, K, coef_g.data(), false, w_k.data(), false, out, 0.0);
    if (batched)  // (tm, d, R) -> slot g of (tm, d, G, R)
      for (int64_t t = 0; t < tm; ++t)
        for (int64_t j = 0; j < d; ++j) std::copy_n(out + (t * d + j) * R, R, m_t.data() + ((t * d + j) * G + g) * R);
  }
  if (G > 1) {
    w_g.assign(G * R * S, T(0));
    for (int64_t r = 0; r < R; ++r)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < d; ++j) w_g[(group[k] * R + r) * S + k * d + j] = w_r[r * S + k * d + j];
  }
}

template <class T>
const T* Setup<T>::mask(int64_t g, const T* x, std::vector<T>& buf) const {
  if (G == 1) return x;
  buf.assign(B * S, T(0));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < K; ++k)
      if (group[k] == g)
        for (int64_t j = 0; j < d; ++j) buf[b * S + k * d + j] = x[b * S + k * d + j];
  return buf.data();
}

template <class T>
void forward_rows(const Setup<T>& s, const ForwardArgs<T>& f, int64_t b0, int64_t b1) {
  const int64_t steps = s.steps, B = s.B, d = s.d, R = s.R, K = s.K, S = s.S, G = s.G;
  for (int64_t t = 0; t < steps; ++t) {
    const T* prev = t == 0 ? f.mu0 : f.mu + (t - 1) * B * S;  // (B, S), all_steps only
    const T* ct = f.coef + t * K;
    for (int64_t b = b0; b < b1; ++b) {
      T* rb = f.r + (t * B + b) * R;  // r_t = relu(b_r + sum_g z_g,t-1)
      T* zrow = f.z + b * G * R;
      for (int64_t q = 0; q < R; ++q) rb[q] = f.b_r[q];
      for (int64_t g = 0; g < G; ++g) {
        const T* zb = zrow + g * R;
#pragma omp simd
        for (int64_t q = 0; q < R; ++q) rb[q] += zb[q];
      }
#pragma omp simd
      for (int64_t q = 0; q < R; ++q) rb[q] = rb[q] < T(0) ? T(0) : rb[q];
      T* pb = f.phi + (t * B + b) * d;  // phi_t = relu(px_t + r_t w_pr^T)
      for (int64_t j = 0; j < d; ++j) {
        const T* wj = f.w_pr + j * R;
        T acc = T(0);
#pragma omp simd reduction(+ : acc)
        for (int64_t q = 0; q < R; ++q) acc += wj[q] * rb[q];
        acc += f.px[(t * B + b) * d + j];
        pb[j] = acc < T(0) ? T(0) : acc;
      }
      for (int64_t g = 0; g < G; ++g) {  // z_g,t = a_g z_g,t-1 + phi_t M_g,t^T
        T* zb = zrow + g * R;
        const T* mg = s.m_of(g, t);
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
      if (!f.all_steps) continue;
      const T* pv = prev + b * S;
      T* mb = f.mu + (t * B + b) * S;
      for (int64_t k = 0; k < K; ++k) {
        const T m = f.decay[k], c = ct[k];
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) mb[k * d + j] = m * pv[k * d + j] + c * pb[j];
      }
    }
  }
}

template <class T>
void backward_rows(const Setup<T>& s, const BackwardArgs<T>& f, int64_t b0, int64_t b1, T* gc, T* gw) {
  const int64_t steps = s.steps, B = s.B, d = s.d, R = s.R, K = s.K, G = s.G, RD = R * d;
  // dp: the chunk's d phi (b1 - b0, d); pt_g: its P_g,t = A_g,t^T phi_t, (d, R)
  std::vector<T> dp_rows((b1 - b0) * d), da(R), pt_g(G * RD);
  for (int64_t t = steps - 1; t >= 0; --t) {
    const T* pt = f.phi + t * B * d;
    const T* ct = f.coef + t * K;
    std::fill(pt_g.begin(), pt_g.end(), T(0));
    upstream(s, f, t, b0, b1, dp_rows.data(), gc);
    for (int64_t b = b0; b < b1; ++b) {
      const T* pb = pt + b * d;
      T* dp = dp_rows.data() + (b - b0) * d;
      T* arow = f.A + b * G * R;
      for (int64_t g = 0; g < G; ++g) {  // + sum_g A_g,t M_g,t, and P_g,t += phi_t[b] x A_g,t[b]
        const T* ab = arow + g * R;
        const T* mg = s.m_of(g, t);
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
      T* dpx = f.g_px + (t * B + b) * d;  // d of phi's pre-activation
      for (int64_t j = 0; j < d; ++j) dpx[j] = dp[j] = pb[j] <= T(0) ? T(0) : dp[j];
      for (int64_t q = 0; q < R; ++q) da[q] = T(0);  // da_t = (dpx w_pr) masked by r_t > 0
      for (int64_t j = 0; j < d; ++j) {
        const T dj = dp[j];
        const T* wj = f.w_pr + j * R;
#pragma omp simd
        for (int64_t q = 0; q < R; ++q) da[q] += dj * wj[q];
      }
      const T* rb = f.r + (t * B + b) * R;
      T* sb = f.dsum + b * R;
#pragma omp simd
      for (int64_t q = 0; q < R; ++q) {
        da[q] = rb[q] <= T(0) ? T(0) : da[q];
        sb[q] += da[q];
      }
      for (int64_t g = 0; g < G; ++g) {  // A_g,t-1 = a_g A_g,t + da_t
        T* ab = arow + g * R;
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

template struct Setup<float>;
template struct Setup<double>;

namespace {

template <class T>
void forward_typed(const Tensor& px_t, const Tensor& w_r_t, const Tensor& b_r_t, const Tensor& w_pr_t,
                   const Tensor& coef_t, const Tensor& decay_t, const Tensor& mu0_t, const Tensor& mu_t,
                   const Tensor& r_t, const Tensor& phi_t) {
  const int64_t steps = px_t.size(0), B = px_t.size(1), d = px_t.size(2), R = w_r_t.size(0), K = decay_t.size(0);
  const T *w_r = w_r_t.data<T>(), *coef = coef_t.data<T>(), *mu0 = mu0_t.data<T>();
  T *mu = mu_t.data<T>(), *phi = phi_t.data<T>();
  const Setup<T> s(steps, B, d, w_r, R, coef, decay_t.data<T>(), K);
  const int64_t S = s.S, G = s.G;
  const bool all_steps = mu_t.size(0) == steps;  // else only mu_{T-1} (1, B, S)

  std::vector<T> z(B * G * R), buf;  // z_g (B, G, R), from mu0
  for (int64_t g = 0; g < G; ++g)
    gemm_rows<T>(B, R, S, s.mask(g, mu0, buf), false, w_r, true, z.data() + g * R, 0.0, nullptr, G * R);
  const ForwardArgs<T> f{
      px_t.data<T>(), b_r_t.data<T>(), w_pr_t.data<T>(), coef, decay_t.data<T>(), mu0, mu, r_t.data<T>(), phi,
      z.data(),       all_steps};
  // Batch rows are independent through time: one parallel region, each thread runs all steps
  // of its rows (no per-step barriers).
  parallel_for(B, steps * (R * d * (G + 1) + (all_steps ? S : 0)), [&](int64_t b0, int64_t b1) {
    if (s.batched)
      forward_batched(s, f, b0, b1);
    else
      forward_rows(s, f, b0, b1);
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
  const T *g_mu = g_mu_t.data<T>(), *w_r = w_r_t.data<T>(), *coef = coef_t.data<T>();
  const T *decay = decay_t.data<T>(), *mu0 = mu0_t.data<T>(), *r = r_t.data<T>(), *phi = phi_t.data<T>();
  T *g_px = g_px_t.data<T>(), *g_w_r = g_w_r_t.data<T>(), *g_b_r = g_b_r_t.data<T>(), *g_w_pr = g_w_pr_t.data<T>();
  T *g_coef = g_coef_t.data<T>(), *g_mu0 = g_mu0_t.data<T>();
  const Setup<T> s(steps, B, d, w_r, R, coef, decay, K);
  const int64_t S = s.S, G = s.G, RD = R * d;
  const bool all_steps = g_mu_t.size(0) == steps;  // else d mu_{T-1} only (1, B, S)

  std::vector<T> A(B * G * R, T(0)), dsum(B * R, T(0)), U(all_steps ? B * S : 0, T(0)), g_last, pw;
  if (!all_steps) {
    g_last.resize(K * B * d);  // d mu_{T-1} as (K, B, d)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < K; ++k) std::copy_n(g_mu + b * S + k * d, d, g_last.data() + (k * B + b) * d);
    pw.resize(steps * K);
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t k = 0; k < K; ++k) pw[t * K + k] = s.power(k, steps - 1 - t);
  }
  std::fill(g_coef, g_coef + steps * K, T(0));
  const BackwardArgs<T> f{g_mu, w_pr_t.data<T>(), coef,     decay,       r,        phi, g_last.data(), pw.data(),
                          g_px, A.data(),         U.data(), dsum.data(), all_steps};

  // Rows are independent through time except for the sums over rows in d coef and d w_r: each
  // chunk of rows runs all steps in one parallel region and keeps its own partial sums, added
  // in chunk order afterwards (no per-step barriers).
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), B));
  std::vector<T> coef_part(chunks * steps * K, T(0)), gwk_part(chunks * K * RD, T(0));
  const int64_t row_cost = steps * (RD * (G + 2) + 3 * S);
  parallel_for(chunks, (B / chunks) * row_cost, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t b0 = B * c / chunks, b1 = B * (c + 1) / chunks;
      T* gc = coef_part.data() + c * steps * K;
      T* gw = gwk_part.data() + c * K * RD;
      if (s.batched)
        backward_batched(s, f, b0, b1, gc, gw);
      else
        backward_rows(s, f, b0, b1, gc, gw);
    }
  });
  for (int64_t c = 0; c < chunks; ++c) {
    const T* gc = coef_part.data() + c * steps * K;
    for (int64_t i = 0; i < steps * K; ++i) g_coef[i] += gc[i];
  }
  std::vector<T> gwk(K * RD, T(0)), buf, a_g(B * R);  // d w_r as (K, d, R)
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
    for (int64_t b = 0; b < B; ++b) std::copy_n(A.data() + (b * G + g) * R, R, a_g.data() + b * R);
    gemm_rows<T>(R, S, B, a_g.data(), true, s.mask(g, mu0, buf), false, g_w_r, 1.0);
    gemm_rows<T>(B, S, R, a_g.data(), false, s.w_of(g, w_r), false, g_mu0, 1.0);
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

[[maybe_unused]] const bool fru_recurrence_bound =
    (fru_forward_kernel.cpu = cpu_fru_forward, fru_backward_kernel.cpu = cpu_fru_backward, true);

}  // namespace
}  // namespace hm::fru_cpu
