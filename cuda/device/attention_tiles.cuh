// The tiled (FlashAttention-2) attention kernels' shared parts: the block layout, the block
// program's thread policies (a device block, or its host twin), tile loads, the two small tile
// GEMMs, the forward pass and the launcher. Used by scaled_dot_product_attention's tiled kernels
// (cuda/scaled_dot_product_attention_flash.cu) and fourier_attention's
// (cuda/fourier_attention_tiled.cu), which differ in the score of a (query, key) pair: q . k
// scaled and biased, or p sum_d log|sinc(R_d (q_d - k_d))|.
// Block layout: 128 threads, thread t owns rows 4 (t / 8) + r (r < 4) and columns t % 8 + 8 u of
// a 64 x 64 score tile, so a row's 8 owners exchange row maxima and sums through shared memory.
// Shared-memory rows are padded by one float, so a warp's loads down a column hit distinct banks.
// The block code is written once over a `Threads` policy: on the device each phase is the
// thread's own work then __syncthreads(); the host twin runs the phase for thread 0..127 in turn
// (the same tiles, per-thread state and summation order), so CPU-only machines test it.
#pragma once
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/dropout_functors.h"
#include "harmonic/ops/scaled_dot_product_attention_tiles.h"

namespace hm::cuda::attention_tiles {

constexpr int kBr = static_cast<int>(SdpaTiles::kRows), kBc = static_cast<int>(SdpaTiles::kCols);
static_assert(kBr == kBc, "the dK/dV pass sums its 64 query columns with the forward's 64-column tile code");
constexpr int kBlock = 128;            // threads per block
constexpr int kGroups = 8;             // column groups: thread t owns columns t % 8 + 8 u
constexpr int kR = 4;                  // rows per thread: 4 (t / 8) + r
constexpr int kU = kBc / kGroups;      // columns per thread of a score tile
constexpr int kLdp = kBc + 1;          // padded row length of score tiles in shared memory
static_assert(kBlock / kGroups * kR == kBr, "16 row groups of 4 rows cover a tile");
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

HM_HD float fexp(float x) {
#ifdef __CUDA_ARCH__
  return expf(x);
#else
  return std::exp(x);
#endif
}
HM_HD float flog(float x) {
#ifdef __CUDA_ARCH__
  return logf(x);
#else
  return std::log(x);
#endif
}
HM_HD float flog1p(float x) {
#ifdef __CUDA_ARCH__
  return log1pf(x);
#else
  return std::log1p(x);
#endif
}
HM_HD float fmax2(float a, float b) { return a > b ? a : b; }

// One block's threads, phase by phase: run(states, f) does f(t, state of t) for each thread t,
// then a barrier.
struct DeviceThreads {
  template <class St, class F>
  HM_HD void run(St* st, F&& f) const {
#ifdef __CUDA_ARCH__
    f(static_cast<int>(threadIdx.x), *st);
    __syncthreads();
#endif
  }
};
struct HostThreads {  // the host twin: each phase for thread 0, 1, ... in turn
  template <class St, class F>
  HM_HD void run(St* st, F&& f) const {
    for (int t = 0; t < kBlock; ++t) f(t, st[t]);
  }
};

// rows x W values of src rows r0.. (a (n, W) matrix) into dst rows ld apart; zeros past row n.
template <int W>
HM_HD void load_rows(float* dst, int ld, const float* src, int64_t r0, int64_t n, int rows, int t) {
  for (int e = t; e < rows * W; e += kBlock) {
    const int r = e / W, c = e % W;
    dst[r * ld + c] = r0 + r < n ? src[(r0 + r) * W + c] : 0.0f;
  }
}

// acc[r][u] = a_r . b_(8 u) over N, for A's rows r < 4 (lda apart) and B's rows 8 u (ldb apart).
template <int N>
HM_HD void dot_tile(const float* A, int lda, const float* B, int ldb, float (&acc)[kR][kU]) {
#pragma unroll
  for (int r = 0; r < kR; ++r)
#pragma unroll
    for (int u = 0; u < kU; ++u) acc[r][u] = 0.0f;
#pragma unroll 4
  for (int d = 0; d < N; ++d) {
    float a[kR], b[kU];
#pragma unroll
    for (int r = 0; r < kR; ++r) a[r] = A[r * lda + d];
#pragma unroll
    for (int u = 0; u < kU; ++u) b[u] = B[u * kGroups * ldb + d];
#pragma unroll
    for (int r = 0; r < kR; ++r)
#pragma unroll
      for (int u = 0; u < kU; ++u) acc[r][u] += a[r] * b[u];
  }
}

// o[r][w] += sum_(j < 64) p_(r, j) v_(j, 8 w), P's rows r < 4 (ldp apart), V's rows ldv apart.
// Transposed: P is stored key-major, p_(r, j) at P[j ldp + r].
template <int W, bool Transposed = false>
HM_HD void acc_tile(const float* P, int ldp, const float* V, int ldv, float (&o)[kR][W]) {
#pragma unroll 2
  for (int j = 0; j < kBc; ++j) {
    float a[kR];
#pragma unroll
    for (int r = 0; r < kR; ++r) a[r] = Transposed ? P[j * ldp + r] : P[r * ldp + j];
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const float b = V[j * ldv + kGroups * w];
#pragma unroll
      for (int r = 0; r < kR; ++r) o[r][w] += a[r] * b;
    }
  }
}

// What the tiled passes of both attentions share: sizes, tile geometry, the inputs and outputs,
// and the dropout mask. Each attention derives its Params from it, adding its score (scores<D>,
// logit) and its own inputs.
struct TileParams {
  const float *q, *k, *v;  // (B, H, Nq, D), (B, H, Nk, D), (B, H, Nk, Dv)
  const bool* pad;         // (B, Nk) or null
  int64_t H, Nq, Nk;
  SdpaTiles tiles;
  bool drop;
  float pf, drop_scale;
  uint64_t seed, offset;
  const int64_t* offset_base;  // null, or a captured draw's device value added to offset
  float *out, *lse;                    // forward: (B, H, Nq, Dv), (B, H, Nq)
  const float *lse_in, *grad, *delta;  // backward: (B, H, Nq), (B, H, Nq, Dv), (B, H, Nq)
  float *dq, *dk, *dv;                 // backward: q's, k's, v's shapes

  // The sizes and the dropout of a call: q (B, H, Nq, D), k (B, H, Nk, D), dropout_p, its Philox
  // seed and offset (plus *offset_base_ when not null: core/philox_draw.h).
  void set(const float* q_, const float* k_, const float* v_, const bool* pad_, int64_t H_, int64_t Nq_, int64_t Nk_,
           bool causal, double dropout_p, uint64_t seed_, uint64_t offset_, const int64_t* offset_base_) {
    q = q_, k = k_, v = v_, pad = pad_;
    H = H_, Nq = Nq_, Nk = Nk_;
    tiles = SdpaTiles{.Nq = Nq, .Nk = Nk, .causal = causal};
    drop = dropout_p > 0.0;
    pf = static_cast<float>(dropout_p);
    drop_scale = drop ? static_cast<float>(1.0 / (1.0 - dropout_p)) : 1.0f;
    seed = seed_, offset = offset_, offset_base = offset_base_;
  }
  // Whether (bh, i, j) is out of range, above the causal diagonal or a padded key.
  HM_HD bool blocked(int64_t bh, int64_t i, int64_t j) const {
    return !tiles.visible(i, j) || (pad && pad[(bh / H) * Nk + j]);
  }
  // The dropout factor of weight (bh, i, j): the CPU's keep decision (ops/attention_dropout.h),
  // element (bh Nq + i) Nk + j.
  HM_HD float keep(int64_t bh, int64_t i, int64_t j) const {
    if (!drop) return 1.0f;
    return dropout_keep(seed, offset_base ? offset + static_cast<uint64_t>(*offset_base) : offset,
                        static_cast<uint64_t>((bh * Nq + i) * Nk + j), pf)
               ? drop_scale
               : 0.0f;
  }
  // A row's lse and its output's factor from the running max m and sum l > 0: m + log l and
  // 1 / l. A Params type with another normaliser hides this (Forward calls the derived one).
  HM_HD void normaliser(float m, float l, float& lse, float& inv) const {
    lse = m + flog(l);
    inv = 1.0f / l;
  }
  // P from the forward's lse: 0 for a blocked pair and for a fully masked row (lse -inf).
  HM_HD static float prob(float s, float lse) { return s == kNegInf || lse == kNegInf ? 0.0f : fexp(s - lse); }
};

// -- forward ---------------------------------------------------------------------------------
// Params supplies the scores of a tile (scores<D>: acc[r][u] from Q's rows r and K's rows 8 u),
// the masked logit of (bh, i, j) from a score (-inf where blocked), the dropout factor keep(),
// the sizes H, Nq, Nk, the tile geometry `tiles`, the inputs q, k, v and the outputs out, lse.

template <int D, int Dv, class Params>
struct Forward {
  static constexpr int ldq = D + 1, ldv = Dv + 1, W = Dv / kGroups;
  // Q (kBr, ldq), K (kBc, ldq), V (kBc, ldv), P (kBr, kLdp), row max and sum partials (2, kBr, 8)
  static constexpr size_t smem_floats = size_t{kBr} * ldq + size_t{kBc} * ldq + size_t{kBc} * ldv +
                                        size_t{kBr} * kLdp + 2 * size_t{kBr} * kGroups;
  struct Thread {
    float m[kR], l[kR], corr[kR], o[kR][W], s[kR][kU];
  };

  // Query tile qt of slice bh.
  template <class Threads>
  HM_HD static void block(const Params& p, int64_t bh, int64_t qt, float* smem, Thread* st,
                          const Threads& threads) {
    float* Qs = smem;
    float* Ks = Qs + kBr * ldq;
    float* Vs = Ks + kBc * ldq;
    float* Ps = Vs + kBc * ldv;        // the tile's weights, dropout applied
    float* red = Ps + kBr * kLdp;      // [0, 512): row max partials; [512, 1024): row sum partials
    const int64_t i0 = qt * kBr;
    threads.run(st, [&](int t, Thread& th) {
      load_rows<D>(Qs, ldq, p.q + bh * p.Nq * D, i0, p.Nq, kBr, t);
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        th.m[r] = kNegInf, th.l[r] = 0.0f;
        #pragma unroll
        for (int w = 0; w < W; ++w) th.o[r][w] = 0.0f;
      }
    });
    const int64_t kt_end = p.tiles.key_tile_end(qt);
    for (int64_t kt = 0; kt < kt_end; ++kt) {
      const int64_t j0 = kt * kBc;
      threads.run(st, [&](int t, Thread&) {
        load_rows<D>(Ks, ldq, p.k + bh * p.Nk * D, j0, p.Nk, kBc, t);
        load_rows<Dv>(Vs, ldv, p.v + bh * p.Nk * Dv, j0, p.Nk, kBc, t);
      });
      threads.run(st, [&](int t, Thread& th) {  // S, masked; each owner's row maxima
        const int g = t / kGroups, c = t % kGroups;
        p.template scores<D>(Qs + kR * g * ldq, ldq, Ks + c * ldq, ldq, th.s);
        #pragma unroll
        for (int r = 0; r < kR; ++r) {
          float mx = kNegInf;
          #pragma unroll
          for (int u = 0; u < kU; ++u) {
            th.s[r][u] = p.logit(bh, i0 + kR * g + r, j0 + c + kGroups * u, th.s[r][u]);
            mx = fmax2(mx, th.s[r][u]);
          }
          red[(kR * g + r) * kGroups + c] = mx;
        }
      });
      threads.run(st, [&](int t, Thread& th) {  // the new row max, P, each owner's row sums
        const int g = t / kGroups, c = t % kGroups;
        #pragma unroll
        for (int r = 0; r < kR; ++r) {
          const int row = kR * g + r;
          const float* part = red + row * kGroups;
          float m_new = th.m[r];
          #pragma unroll
          for (int x = 0; x < kGroups; ++x) m_new = fmax2(m_new, part[x]);
          float sum = 0.0f;
          if (m_new == kNegInf) {  // nothing visible yet: P = 0, nothing to rescale
            th.corr[r] = 1.0f;
            #pragma unroll
            for (int u = 0; u < kU; ++u) Ps[row * kLdp + c + kGroups * u] = 0.0f;
          } else {
            th.corr[r] = fexp(th.m[r] - m_new);  // 0 when the row had no visible key before
            #pragma unroll
            for (int u = 0; u < kU; ++u) {
              const float e = fexp(th.s[r][u] - m_new);
              sum += e;
              Ps[row * kLdp + c + kGroups * u] = e == 0.0f ? 0.0f : e * p.keep(bh, i0 + row, j0 + c + kGroups * u);
            }
            th.m[r] = m_new;
          }
          red[kBr * kGroups + row * kGroups + c] = sum;
        }
      });
      threads.run(st, [&](int t, Thread& th) {  // l and O rescaled, O += P V
        const int g = t / kGroups, c = t % kGroups;
        #pragma unroll
        for (int r = 0; r < kR; ++r) {
          const float* part = red + kBr * kGroups + (kR * g + r) * kGroups;
          float sum = 0.0f;
          #pragma unroll
          for (int x = 0; x < kGroups; ++x) sum += part[x];
          th.l[r] = th.l[r] * th.corr[r] + sum;
          #pragma unroll
          for (int w = 0; w < W; ++w) th.o[r][w] *= th.corr[r];
        }
        acc_tile<W>(Ps + kR * g * kLdp, kLdp, Vs + c, ldv, th.o);
      });
    }
    threads.run(st, [&](int t, Thread& th) {  // out = O / l, lse = m + log l
      const int g = t / kGroups, c = t % kGroups;
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        const int64_t i = i0 + kR * g + r;
        if (i >= p.Nq) continue;
        float* o = p.out + (bh * p.Nq + i) * Dv;
        const bool dead = th.l[r] == 0.0f;  // every key masked: zeros, lse -inf
        float lse = kNegInf, inv = 0.0f;
        if (!dead) p.normaliser(th.m[r], th.l[r], lse, inv);
        #pragma unroll
        for (int w = 0; w < W; ++w) o[c + kGroups * w] = dead ? 0.0f : th.o[r][w] * inv;
        if (c == 0) p.lse[bh * p.Nq + i] = lse;
      }
    });
  }
};

// -- launching -------------------------------------------------------------------------------

// Blocks are numbered bh * tiles + x; the forward and dQ passes take the query tiles last to
// first (under the causal mask the later rows visit the most key tiles: the longest blocks start first).
template <class Pass, class Params>
__global__ void __launch_bounds__(kBlock) pass_kernel(Params p, int64_t tiles, bool reverse) {
  extern __shared__ float smem[];
  typename Pass::Thread th;
  const int64_t bh = blockIdx.x / tiles, x = blockIdx.x % tiles;
  Pass::block(p, bh, reverse ? tiles - 1 - x : x, smem, &th, DeviceThreads{});
}

template <class Pass>
constexpr size_t smem_bytes() {
  return Pass::smem_floats * sizeof(float);
}

// Runs Pass over bh < BH and its `tiles` tiles: a kernel launch, or the host twin block by
// block (shared memory and thread states start as NaN, so a read before a write shows).
template <Exec E, class Pass, class Params>
void run_pass(const Params& p, int64_t BH, int64_t tiles, bool reverse, int device) {
  const int64_t blocks = BH * tiles;
  if (blocks == 0) return;
  if constexpr (E == Exec::Host) {
    std::vector<float> smem(Pass::smem_floats, std::numeric_limits<float>::quiet_NaN());
    std::vector<typename Pass::Thread> st(kBlock);
    for (int64_t b = 0; b < blocks; ++b) {
      std::memset(static_cast<void*>(st.data()), 0xff, st.size() * sizeof(typename Pass::Thread));  // NaNs
      const int64_t x = b % tiles;
      Pass::block(p, b / tiles, reverse ? tiles - 1 - x : x, smem.data(), st.data(), HostThreads{});
    }
  } else {
    DeviceGuard guard(device);
    HM_CUDA_CHECK(cudaFuncSetAttribute(pass_kernel<Pass, Params>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem_bytes<Pass>())));
    pass_kernel<Pass, Params><<<static_cast<unsigned>(blocks), kBlock, smem_bytes<Pass>(), stream(device)>>>(p, tiles, reverse);
    HM_CUDA_CHECK_LAUNCH();
  }
}

// Whether `device` gives a block `bytes` of shared memory (always, for the host twin).
template <Exec E>
bool smem_fits(size_t bytes, int device) {
  if constexpr (E == Exec::Host) return true;
  int optin = 0;
  HM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes <= static_cast<size_t>(optin);
}

struct DeltaRow {  // delta_i = dO_i . O_i
  const float *grad, *out;
  float* delta;
  int64_t Dv;
  HM_HD void operator()(int64_t row) const {
    float s = 0.0f;
    for (int64_t e = 0; e < Dv; ++e) s += grad[row * Dv + e] * out[row * Dv + e];
    delta[row] = s;
  }
};

}  // namespace hm::cuda::attention_tiles
