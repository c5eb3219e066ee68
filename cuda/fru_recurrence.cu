// CUDA fused FRU/SRU recurrence: the per-step formulas computed directly (the CPU kernel,
// ops/cpu/fru_recurrence.cpp, instead keeps decay-grouped running sums of mu w_r^T; the host-twin
// tests check that the two agree). The batch rows of the recurrence are independent and the time
// loop is sequential, so a batch row loops over the T steps in order (no per-step launches).
// Backward:
//   pass 1, per batch row, t = T-1..0: g = g_mu_t + carry, d phi, d px, the relu-masked
//           pre-activation gradient of r (kept, (T, B, R)), the row's d coef terms ((T, B, K)
//           partials) and carry = decay g + d r_pre w_r; carry ends as d mu0;
//   pass 2, the sums over rows in a fixed order (no atomics): d coef per (t, k), d w_r per
//           (q, s) over all (t, b) with mu_{t-1}, d w_pr per (j, q), d b_r per q.
// The forward and pass 1 run one block per batch row, whose threads share each step's phases (r
// over q, phi over j, mu over s; the backward likewise) with a barrier between phases; a thread
// per batch row would leave all but B threads idle.
#include "harmonic/core/dtype.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/fru_recurrence_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct ForwardArgs {
  const T *px, *w_r, *b_r, *w_pr, *coef, *decay, *mu0;
  T *mu, *r, *phi;
  int64_t steps, B, d, R, K;
};

template <class T>
struct BackwardArgs {  // pass 1's
  const T *g_mu, *w_r, *w_pr, *coef, *decay, *r, *phi;
  T *g_px, *da_r, *coef_part, *carry;  // da_r (T, B, R), coef_part (T, B, K), carry = g_mu0 (B, S)
  int64_t steps, B, d, R, K;
};

// -- block per batch row ---------------------------------------------------------------------
// A block program: each(n, f) runs f(x) for x < n spread over the block's threads (the host twin:
// in order), barrier() separates phases.
constexpr int kRowThreads = 256;
struct DeviceBlock {
  template <class F>
  HM_HD void each(int64_t n, F&& f) const {
#ifdef __CUDA_ARCH__
    for (int64_t x = threadIdx.x; x < n; x += blockDim.x) f(x);
#endif
  }
  HM_HD void barrier() const {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
  }
};
struct HostBlock {
  template <class F>
  HM_HD void each(int64_t n, F&& f) const {
    for (int64_t x = 0; x < n; ++x) f(x);
  }
  HM_HD void barrier() const {}
};

template <class T>
struct ForwardBlocks {  // the forward, a phase per quantity
  ForwardArgs<T> a;
  template <class Block>
  HM_HD void run(int64_t b, const Block& blk) const {
    const int64_t S = a.K * a.d, B = a.B, d = a.d, R = a.R, K = a.K;
    for (int64_t t = 0; t < a.steps; ++t) {
      const T* prev = t == 0 ? a.mu0 + b * S : a.mu + ((t - 1) * B + b) * S;  // (S)
      T* rt = a.r + (t * B + b) * R;
      T* pt = a.phi + (t * B + b) * d;
      T* mt = a.mu + (t * B + b) * S;
      blk.each(R, [&](int64_t q) {
        const T* wq = a.w_r + q * S;
        T acc = T(0);
        for (int64_t s = 0; s < S; ++s) acc += prev[s] * wq[s];
        acc += a.b_r[q];
        rt[q] = acc < T(0) ? T(0) : acc;
      });
      blk.barrier();
      blk.each(d, [&](int64_t j) {
        const T* wj = a.w_pr + j * R;
        T acc = a.px[(t * B + b) * d + j];
        for (int64_t q = 0; q < R; ++q) acc += wj[q] * rt[q];
        pt[j] = acc < T(0) ? T(0) : acc;
      });
      blk.barrier();
      blk.each(S, [&](int64_t s) {
        const int64_t k = s / d;
        mt[s] = a.decay[k] * prev[s] + a.coef[t * K + k] * pt[s % d];
      });
      blk.barrier();
    }
  }
};

template <class T>
struct BackwardBlocks {  // pass 1, a phase per quantity
  BackwardArgs<T> a;
  template <class Block>
  HM_HD void run(int64_t b, const Block& blk) const {
    const int64_t S = a.K * a.d, B = a.B, d = a.d, R = a.R, K = a.K;
    T* cb = a.carry + b * S;
    blk.each(S, [&](int64_t s) { cb[s] = T(0); });
    blk.barrier();
    for (int64_t t = a.steps - 1; t >= 0; --t) {
      const int64_t tb = t * B + b;
      const T* gtb = a.g_mu + tb * S;
      const T* pb = a.phi + tb * d;
      const T* rb = a.r + tb * R;
      T* dp = a.g_px + tb * d;
      T* db = a.da_r + tb * R;
      blk.each(S, [&](int64_t s) { cb[s] = gtb[s] + cb[s]; });  // cb = g, the total gradient of mu_t
      blk.barrier();
      blk.each(K + d, [&](int64_t x) {
        if (x < K) {  // d coef_k of this row
          T part = T(0);
          for (int64_t j = 0; j < d; ++j) part += cb[x * d + j] * pb[j];
          a.coef_part[tb * K + x] = part;
        } else {  // d px_j
          const int64_t j = x - K;
          T acc = T(0);
          for (int64_t k = 0; k < K; ++k) acc += a.coef[t * K + k] * cb[k * d + j];
          dp[j] = pb[j] <= T(0) ? T(0) : acc;
        }
      });
      blk.barrier();
      blk.each(S + R, [&](int64_t x) {
        if (x < S) {  // the carry through the decay
          cb[x] = a.decay[x / d] * cb[x];
        } else {  // d r_pre
          const int64_t q = x - S;
          T acc = T(0);
          for (int64_t j = 0; j < d; ++j) acc += dp[j] * a.w_pr[j * R + q];
          db[q] = rb[q] <= T(0) ? T(0) : acc;
        }
      });
      blk.barrier();
      blk.each(S, [&](int64_t s) {  // carry += d r_pre w_r
        T acc = cb[s];
        for (int64_t q = 0; q < R; ++q) acc += db[q] * a.w_r[q * S + s];
        cb[s] = acc;
      });
      blk.barrier();
    }
  }
};

template <class Prog>
__global__ void __launch_bounds__(kRowThreads) row_block_kernel(Prog prog) {
  prog.run(blockIdx.x, DeviceBlock{});
}

// prog.run(b, block) for each batch row b: a block each on the device, in turn on the host twin.
template <Exec E, class Prog>
void run_row_blocks(const Prog& prog, int64_t rows, int device) {
  if (rows == 0) return;
  if constexpr (E == Exec::Host) {
    for (int64_t b = 0; b < rows; ++b) prog.run(b, HostBlock{});
  } else {
    DeviceGuard guard(device);
    row_block_kernel<Prog><<<static_cast<unsigned>(rows), kRowThreads, 0, stream(device)>>>(prog);
    HM_CUDA_CHECK_LAUNCH();
  }
}

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
    const ForwardArgs<T> row{in<T>(px),    in<T>(w_r), in<T>(b_r), in<T>(w_pr), in<T>(coef),
                             in<T>(decay), in<T>(mu0), out<T>(mu), out<T>(r),   out<T>(phi),
                             px.size(0),   B,          px.size(2), w_r.size(0), decay.size(0)};
    run_row_blocks<E>(ForwardBlocks<T>{row}, B, device);
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
    const BackwardArgs<T> row{in<T>(g_mu),
                              in<T>(w_r),
                              in<T>(w_pr),
                              in<T>(coef),
                              in<T>(decay),
                              in<T>(r),
                              in<T>(phi),
                              out<T>(g_px),
                              out<T>(da_r),
                              out<T>(part),
                              out<T>(g_mu0),
                              steps,
                              B,
                              d,
                              R,
                              K};
    run_row_blocks<E>(BackwardBlocks<T>{row}, B, device);
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
