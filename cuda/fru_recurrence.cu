// CUDA fused FRU/SRU recurrence: the per-step formulas computed directly (the CPU kernel,
// ops/cpu/fru_recurrence.cpp, instead keeps decay-grouped running sums of mu w_r^T; the host-twin tests
// check that the two agree). The batch rows of the
// recurrence are independent, so the forward is one thread per batch row looping over the
// T steps in order (the time loop is sequential anyway; no per-step launches). Backward:
//   pass 1, one thread per batch row, t = T-1..0: g = g_mu_t + carry, d phi, d px, the
//           relu-masked pre-activation gradient of r (kept, (T, B, R)), the row's d coef
//           terms ((T, B, K) partials) and carry = decay g + d r_pre w_r; carry ends as d mu0;
//   pass 2, the sums over rows in a fixed order (no atomics): d coef per (t, k), d w_r per
//           (q, s) over all (t, b) with mu_{t-1}, d w_pr per (j, q), d b_r per q.
// Parallelism is only B in pass 1, which suits the small-batch recurrent use; the GEMM-heavy
// CPU path stays faster for large B and state (a tiled version is future work).
#include "harmonic/core/dtype.h"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/launch.cuh"
#include "harmonic/ops/fru_recurrence_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct ForwardBatchRow {
  const T *px, *w_r, *b_r, *w_pr, *coef, *decay, *mu0;
  T *mu, *r, *phi;
  int64_t steps, B, d, R, K;
  HM_HD void operator()(int64_t b) const {
    const int64_t S = K * d;
    for (int64_t t = 0; t < steps; ++t) {
      const T* prev = t == 0 ? mu0 + b * S : mu + ((t - 1) * B + b) * S;  // (S)
      T* rt = r + (t * B + b) * R;
      T* pt = phi + (t * B + b) * d;
      T* mt = mu + (t * B + b) * S;
      for (int64_t q = 0; q < R; ++q) {
        const T* wq = w_r + q * S;
        T acc = T(0);
        for (int64_t s = 0; s < S; ++s) acc += prev[s] * wq[s];
        acc += b_r[q];
        rt[q] = acc < T(0) ? T(0) : acc;
      }
      for (int64_t j = 0; j < d; ++j) {
        const T* wj = w_pr + j * R;
        T acc = px[(t * B + b) * d + j];
        for (int64_t q = 0; q < R; ++q) acc += wj[q] * rt[q];
        pt[j] = acc < T(0) ? T(0) : acc;
      }
      for (int64_t k = 0; k < K; ++k) {
        const T m = decay[k], c = coef[t * K + k];
        for (int64_t j = 0; j < d; ++j) mt[k * d + j] = m * prev[k * d + j] + c * pt[j];
      }
    }
  }
};

template <class T>
struct BackwardBatchRow {  // pass 1
  const T *g_mu, *w_r, *w_pr, *coef, *decay, *r, *phi;
  T *g_px, *da_r, *coef_part, *carry;  // da_r (T, B, R), coef_part (T, B, K), carry = g_mu0 (B, S)
  int64_t steps, B, d, R, K;
  HM_HD void operator()(int64_t b) const {
    const int64_t S = K * d;
    T* cb = carry + b * S;
    for (int64_t i = 0; i < S; ++i) cb[i] = T(0);
    for (int64_t t = steps - 1; t >= 0; --t) {
      const int64_t tb = t * B + b;
      const T* gtb = g_mu + tb * S;
      for (int64_t i = 0; i < S; ++i) cb[i] = gtb[i] + cb[i];  // cb = g, the total gradient of mu_t
      const T* pb = phi + tb * d;
      T* dp = g_px + tb * d;
      for (int64_t j = 0; j < d; ++j) dp[j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const T c = coef[t * K + k], m = decay[k];
        T part = T(0);
        for (int64_t j = 0; j < d; ++j) {
          const T gj = cb[k * d + j];
          dp[j] += c * gj;
          part += gj * pb[j];
          cb[k * d + j] = m * gj;
        }
        coef_part[tb * K + k] = part;
      }
      for (int64_t j = 0; j < d; ++j) dp[j] = pb[j] <= T(0) ? T(0) : dp[j];
      const T* rb = r + tb * R;
      T* db = da_r + tb * R;
      for (int64_t q = 0; q < R; ++q) db[q] = T(0);
      for (int64_t j = 0; j < d; ++j) {
        const T dj = dp[j];
        const T* wj = w_pr + j * R;
        for (int64_t q = 0; q < R; ++q) db[q] += dj * wj[q];
      }
      for (int64_t q = 0; q < R; ++q) db[q] = rb[q] <= T(0) ? T(0) : db[q];
      for (int64_t q = 0; q < R; ++q) {  // carry += d r_pre w_r
        const T dq = db[q];
        const T* wq = w_r + q * S;
        for (int64_t s = 0; s < S; ++s) cb[s] += dq * wq[s];
      }
    }
  }
};

template <class T>
struct CoefSum {  // g_coef[t, k] = sum_b coef_part[t, b, k]
  const T* part;
  T* g_coef;
  int64_t B, K;
  HM_HD void operator()(int64_t tk) const {
    const int64_t t = tk / K, k = tk % K;
    T acc = T(0);
    for (int64_t b = 0; b < B; ++b) acc += part[(t * B + b) * K + k];
    g_coef[tk] = acc;
  }
};

template <class T>
struct WeightRGrad {  // g_w_r[q, s] = sum_{t, b} da_r[t, b, q] mu_{t-1}[b, s]
  const T *da_r, *mu0, *mu;
  T* g_w_r;
  int64_t steps, B, R, S;
  HM_HD void operator()(int64_t qs) const {
    const int64_t q = qs / S, s = qs % S;
    T acc = T(0);
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t b = 0; b < B; ++b)
        acc += da_r[(t * B + b) * R + q] * (t == 0 ? mu0[b * S + s] : mu[((t - 1) * B + b) * S + s]);
    g_w_r[qs] = acc;
  }
};

template <class T>
struct BiasGrad {  // g_b_r[q] = sum_{t, b} da_r[t, b, q]
  const T* da_r;
  T* g_b_r;
  int64_t rows, R;
  HM_HD void operator()(int64_t q) const {
    T acc = T(0);
    for (int64_t i = 0; i < rows; ++i) acc += da_r[i * R + q];
    g_b_r[q] = acc;
  }
};

template <class T>
struct WeightPrGrad {  // g_w_pr[j, q] = sum_{t, b} g_px[t, b, j] r[t, b, q]
  const T *g_px, *r;
  T* g_w_pr;
  int64_t rows, d, R;
  HM_HD void operator()(int64_t jq) const {
    const int64_t j = jq / R, q = jq % R;
    T acc = T(0);
    for (int64_t i = 0; i < rows; ++i) acc += g_px[i * d + j] * r[i * R + q];
    g_w_pr[jq] = acc;
  }
};

template <class T>
const T* in(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <class T>
T* out(const Tensor& t) {
  return static_cast<T*>(t.raw_data());
}

template <Exec E>
void forward_on(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                const Tensor& decay, const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi) {
  const int device = kernel_device(E, "fru_forward", {&px, &w_r, &b_r, &w_pr, &coef, &decay, &mu0, &mu, &r, &phi});
  dispatch_float(px.dtype(), "fru_forward", [&]<class T>() {
    const int64_t B = px.size(1);
    for_each_index(
        E, device, B,
        ForwardBatchRow<T>{in<T>(px), in<T>(w_r), in<T>(b_r), in<T>(w_pr), in<T>(coef), in<T>(decay), in<T>(mu0),
                           out<T>(mu), out<T>(r), out<T>(phi), px.size(0), B, px.size(2), w_r.size(0), decay.size(0)});
  });
}

template <Exec E>
void backward_on(const Tensor& g_mu, const Tensor& w_r, const Tensor& w_pr, const Tensor& coef, const Tensor& decay,
                 const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi, const Tensor& g_px,
                 const Tensor& g_w_r, const Tensor& g_b_r, const Tensor& g_w_pr, const Tensor& g_coef,
                 const Tensor& g_mu0) {
  const int device = kernel_device(
      E, "fru_backward",
      {&g_mu, &w_r, &w_pr, &coef, &decay, &mu0, &mu, &r, &phi, &g_px, &g_w_r, &g_b_r, &g_w_pr, &g_coef, &g_mu0});
  dispatch_float(g_mu.dtype(), "fru_backward", [&]<class T>() {
    const int64_t steps = g_mu.size(0), B = g_mu.size(1), d = phi.size(2), R = w_r.size(0), K = decay.size(0);
    Tensor da_r = Tensor::empty({steps, B, R}, g_mu.dtype(), g_mu.device());
    Tensor part = Tensor::empty({steps, B, K}, g_mu.dtype(), g_mu.device());
    for_each_index(
        E, device, B,
        BackwardBatchRow<T>{in<T>(g_mu), in<T>(w_r), in<T>(w_pr), in<T>(coef), in<T>(decay), in<T>(r), in<T>(phi),
                            out<T>(g_px), out<T>(da_r), out<T>(part), out<T>(g_mu0), steps, B, d, R, K});
    for_each_index(E, device, steps * K, CoefSum<T>{in<T>(part), out<T>(g_coef), B, K});
    for_each_index(E, device, R * K * d,
                   WeightRGrad<T>{in<T>(da_r), in<T>(mu0), in<T>(mu), out<T>(g_w_r), steps, B, R, K * d});
    for_each_index(E, device, R, BiasGrad<T>{in<T>(da_r), out<T>(g_b_r), steps * B, R});
    for_each_index(E, device, d * R, WeightPrGrad<T>{in<T>(g_px), in<T>(r), out<T>(g_w_pr), steps * B, d, R});
  });
}

[[maybe_unused]] const bool bound = bind_cuda(fru_forward_kernel, forward_on<Exec::Device>, forward_on<Exec::Host>) &&
                                    bind_cuda(fru_backward_kernel, backward_on<Exec::Device>, backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
