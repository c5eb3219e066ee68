// Tiled CUDA kernels of scaled_dot_product_attention, FlashAttention-2's algorithm in float32
// (FFMA, no tensor cores: TF32 is off by default), the same math as the reference kernels of
// cuda/scaled_dot_product_attention.cu:
//   forward:  one block per (b, h, tile of 64 query rows). Key/value tiles of 64 stream through
//             shared memory; S = scale Q K^T + bias, masked; an online softmax (running max m
//             and sum l per row, O rescaled when m grows) in registers; O += P_drop V. Saves
//             lse = m + log l (-inf: every key masked, and O = 0).
//   backward: delta_i = dO_i . O_i; then two passes that recompute P = exp(S - lse) tile by
//             tile, with dS = P (dP keep - delta) scale and dP = dO V^T:
//               dQ pass,   one block per query tile over its key tiles: dQ += dS K (and dS /
//                          scale into a (B, H, Nq, Nk) buffer when the bias wants its gradient);
//               dK/dV pass, one block per key tile over its query tiles: dV += P_drop^T dO,
//                          dK += dS^T Q.
//             No atomics: each output element has one owner and a fixed summation order, so
//             the result is deterministic (the price: S and dP are computed twice).
//             Outside deterministic mode (core/deterministic.h) and with no bias gradient wanted,
//             the dK/dV pass also adds dS K into dQ (zeroed first) with atomicAdd, FlashAttention-2's
//             single pass: S and dP once, dQ summed over key tiles in no fixed order on the device.
//             A bias shared across b or h gets its gradient by summing that buffer over the
//             shared dims (b outer, h inner, the reference kernels' order).
// Tiles entirely above the causal diagonal are never visited (ops/scaled_dot_product_attention_tiles.h).
// The block layout, thread policies, forward pass and launcher are shared with fourier_attention's
// tiled kernels (cuda/device/attention_tiles.cuh).
#include "harmonic/cuda/device/attention_tiles.cuh"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/cuda/device/scaled_dot_product_attention_flash.cuh"

namespace hm::cuda {
namespace {

using namespace attention_tiles;

struct FlashParams : TileParams {
  const float* bias;  // (Bb, Hb, Nq, Nk) or null
  int64_t Bb, Hb;
  float scale;
  float* ds;  // (B, H, Nq, Nk): dS / scale for the bias gradient, or null

  // The scaled, biased logit of (bh, i, j) from q_i . k_j; -inf where blocked (out of range,
  // causal, padding) or where the bias is -inf.
  HM_HD float logit(int64_t bh, int64_t i, int64_t j, float dot) const {
    if (blocked(bh, i, j)) return kNegInf;
    float s = dot * scale;
    if (bias) {
      const int64_t b = Bb == 1 ? 0 : bh / H, h = Hb == 1 ? 0 : bh % H;
      s += bias[((b * Hb + h) * Nq + i) * Nk + j];
    }
    return s;
  }
  // q . k of a tile's pairs (Forward's scores).
  template <int D>
  HM_HD void scores(const float* A, int lda, const float* B, int ldb, float (&acc)[kR][kU]) const {
    dot_tile<D>(A, lda, B, ldb, acc);
  }
};

// -- backward: dQ pass -----------------------------------------------------------------------

template <int D, int Dv>
struct BackwardQ {
  static constexpr int ldq = D + 1, ldv = Dv + 1, W = D / kGroups;
  // Q (kBr, ldq), dO (kBr, ldv), K (kBc, ldq), V (kBc, ldv), dS (kBr, kLdp)
  static constexpr size_t smem_floats =
      size_t{kBr} * ldq + size_t{kBr} * ldv + size_t{kBc} * ldq + size_t{kBc} * ldv + size_t{kBr} * kLdp;
  struct Thread {
    float lse[kR], delta[kR], dq[kR][W], s[kR][kU], dp[kR][kU];
  };

  template <class Threads>
  HM_HD static void block(const FlashParams& p, int64_t bh, int64_t qt, float* smem, Thread* st,
                          const Threads& threads) {
    float* Qs = smem;
    float* dOs = Qs + kBr * ldq;
    float* Ks = dOs + kBr * ldv;
    float* Vs = Ks + kBc * ldq;
    float* dSs = Vs + kBc * ldv;
    const int64_t i0 = qt * kBr;
    threads.run(st, [&](int t, Thread& th) {
      load_rows<D>(Qs, ldq, p.q + bh * p.Nq * D, i0, p.Nq, kBr, t);
      load_rows<Dv>(dOs, ldv, p.grad + bh * p.Nq * Dv, i0, p.Nq, kBr, t);
      const int g = t / kGroups;
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        const int64_t i = i0 + kR * g + r;
        th.lse[r] = i < p.Nq ? p.lse_in[bh * p.Nq + i] : kNegInf;
        th.delta[r] = i < p.Nq ? p.delta[bh * p.Nq + i] : 0.0f;
        #pragma unroll
        for (int w = 0; w < W; ++w) th.dq[r][w] = 0.0f;
      }
    });
    const int64_t kt_end = p.tiles.key_tile_end(qt);
    for (int64_t kt = 0; kt < kt_end; ++kt) {
      const int64_t j0 = kt * kBc;
      threads.run(st, [&](int t, Thread&) {
        load_rows<D>(Ks, ldq, p.k + bh * p.Nk * D, j0, p.Nk, kBc, t);
        load_rows<Dv>(Vs, ldv, p.v + bh * p.Nk * Dv, j0, p.Nk, kBc, t);
      });
      threads.run(st, [&](int t, Thread& th) {  // P, dP = dO V^T, dS
        const int g = t / kGroups, c = t % kGroups;
        dot_tile<D>(Qs + kR * g * ldq, ldq, Ks + c * ldq, ldq, th.s);
        dot_tile<Dv>(dOs + kR * g * ldv, ldv, Vs + c * ldv, ldv, th.dp);
        #pragma unroll
        for (int r = 0; r < kR; ++r)
          #pragma unroll
          for (int u = 0; u < kU; ++u) {
            const int64_t i = i0 + kR * g + r, j = j0 + c + kGroups * u;
            const float P = FlashParams::prob(p.logit(bh, i, j, th.s[r][u]), th.lse[r]);
            const float ds = P == 0.0f ? 0.0f : P * (th.dp[r][u] * p.keep(bh, i, j) - th.delta[r]);  // dS / scale
            if (p.ds && i < p.Nq && j < p.Nk) p.ds[(bh * p.Nq + i) * p.Nk + j] = ds;
            dSs[(kR * g + r) * kLdp + c + kGroups * u] = ds * p.scale;
          }
      });
      threads.run(st, [&](int t, Thread& th) {  // dQ += dS K
        const int g = t / kGroups, c = t % kGroups;
        acc_tile<W>(dSs + kR * g * kLdp, kLdp, Ks + c, ldq, th.dq);
      });
    }
    threads.run(st, [&](int t, Thread& th) {
      const int g = t / kGroups, c = t % kGroups;
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        const int64_t i = i0 + kR * g + r;
        if (i >= p.Nq) continue;
        float* dq = p.dq + (bh * p.Nq + i) * D;
        #pragma unroll
        for (int w = 0; w < W; ++w) dq[c + kGroups * w] = th.dq[r][w];
        // The keys of tiles this block never visits (above the causal diagonal) get dS = 0.
        if (p.ds)
          for (int64_t j = kt_end * kBc + c; j < p.Nk; j += kGroups) p.ds[(bh * p.Nq + i) * p.Nk + j] = 0.0f;
      }
    });
  }
};

// -- backward: dK/dV pass --------------------------------------------------------------------

HM_HD void add_to(float* x, float v) {
#ifdef __CUDA_ARCH__
  atomicAdd(x, v);
#else
  *x += v;  // the host twin runs the blocks one after another
#endif
}

// WithDq: also dQ += dS K into p.dq (zeroed before the pass), the single-pass backward.
template <int D, int Dv, bool WithDq = false>
struct BackwardKV {
  static constexpr int ldq = D + 1, ldv = Dv + 1, Wk = D / kGroups, Wv = Dv / kGroups;
  // K (kBc, ldq), V (kBc, ldv), Q (kBr, ldq), dO (kBr, ldv), P_drop^T and dS^T (kBc, kLdp),
  // lse and delta of the query tile (kBr each)
  static constexpr size_t smem_floats = size_t{kBc} * ldq + size_t{kBc} * ldv + size_t{kBr} * ldq +
                                        size_t{kBr} * ldv + 2 * size_t{kBc} * kLdp + 2 * size_t{kBr};
  struct Thread {
    float dk[kR][Wk], dv[kR][Wv], s[kR][kU];
  };

  // Key tile kt of slice bh; thread t owns keys 4 (t / 8) + r and query columns t % 8 + 8 u.
  template <class Threads>
  HM_HD static void block(const FlashParams& p, int64_t bh, int64_t kt, float* smem, Thread* st,
                          const Threads& threads) {
    float* Ks = smem;
    float* Vs = Ks + kBc * ldq;
    float* Qs = Vs + kBc * ldv;
    float* dOs = Qs + kBr * ldq;
    float* Pt = dOs + kBr * ldv;  // P_drop^T: (key, query)
    float* dSt = Pt + kBc * kLdp;  // P^T, then dS^T
    float* Ls = dSt + kBc * kLdp;
    float* Ds = Ls + kBr;
    const int64_t j0 = kt * kBc;
    threads.run(st, [&](int t, Thread& th) {
      load_rows<D>(Ks, ldq, p.k + bh * p.Nk * D, j0, p.Nk, kBc, t);
      load_rows<Dv>(Vs, ldv, p.v + bh * p.Nk * Dv, j0, p.Nk, kBc, t);
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        #pragma unroll
        for (int w = 0; w < Wk; ++w) th.dk[r][w] = 0.0f;
        #pragma unroll
        for (int w = 0; w < Wv; ++w) th.dv[r][w] = 0.0f;
      }
    });
    const int64_t qt_end = p.tiles.query_tiles();
    for (int64_t qt = p.tiles.query_tile_begin(kt); qt < qt_end; ++qt) {
      const int64_t i0 = qt * kBr;
      threads.run(st, [&](int t, Thread&) {
        load_rows<D>(Qs, ldq, p.q + bh * p.Nq * D, i0, p.Nq, kBr, t);
        load_rows<Dv>(dOs, ldv, p.grad + bh * p.Nq * Dv, i0, p.Nq, kBr, t);
        for (int r = t; r < kBr; r += kBlock) {
          Ls[r] = i0 + r < p.Nq ? p.lse_in[bh * p.Nq + i0 + r] : kNegInf;
          Ds[r] = i0 + r < p.Nq ? p.delta[bh * p.Nq + i0 + r] : 0.0f;
        }
      });
      threads.run(st, [&](int t, Thread& th) {  // P^T, P_drop^T, dP^T = V dO^T, dS^T
        const int g = t / kGroups, c = t % kGroups;
        dot_tile<D>(Ks + kR * g * ldq, ldq, Qs + c * ldq, ldq, th.s);
        #pragma unroll
        for (int r = 0; r < kR; ++r)
          #pragma unroll
          for (int u = 0; u < kU; ++u) {
            const int64_t j = j0 + kR * g + r, i = i0 + c + kGroups * u;
            const int x = (kR * g + r) * kLdp + c + kGroups * u;
            const float P = FlashParams::prob(p.logit(bh, i, j, th.s[r][u]), Ls[c + kGroups * u]);
            dSt[x] = P;  // parked here (this thread's own elements) while th.s holds dP
            Pt[x] = P == 0.0f ? 0.0f : P * p.keep(bh, i, j);
          }
        dot_tile<Dv>(Vs + kR * g * ldv, ldv, dOs + c * ldv, ldv, th.s);
        #pragma unroll
        for (int r = 0; r < kR; ++r)
          #pragma unroll
          for (int u = 0; u < kU; ++u) {
            const int x = (kR * g + r) * kLdp + c + kGroups * u;
            const float P = dSt[x];
            // P (dP keep - delta) = P_drop dP - P delta
            dSt[x] = P == 0.0f ? 0.0f : (Pt[x] * th.s[r][u] - P * Ds[c + kGroups * u]) * p.scale;
          }
      });
      threads.run(st, [&](int t, Thread& th) {  // dV += P_drop^T dO, dK += dS^T Q
        const int g = t / kGroups, c = t % kGroups;
        acc_tile<Wv>(Pt + kR * g * kLdp, kLdp, dOs + c, ldv, th.dv);
        acc_tile<Wk>(dSt + kR * g * kLdp, kLdp, Qs + c, ldq, th.dk);
        if constexpr (WithDq) {  // dQ += dS K for queries 4 g + r of this tile, dims c + 8 w
          float dq[kR][Wk] = {};
          acc_tile<Wk, true>(dSt + kR * g, kLdp, Ks + c, ldq, dq);
#pragma unroll
          for (int r = 0; r < kR; ++r) {
            const int64_t i = i0 + kR * g + r;
            if (i >= p.Nq) continue;
#pragma unroll
            for (int w = 0; w < Wk; ++w) add_to(p.dq + (bh * p.Nq + i) * D + c + kGroups * w, dq[r][w]);
          }
        }
      });
    }
    threads.run(st, [&](int t, Thread& th) {
      const int g = t / kGroups, c = t % kGroups;
      #pragma unroll
      for (int r = 0; r < kR; ++r) {
        const int64_t j = j0 + kR * g + r;
        if (j >= p.Nk) continue;
        float* dk = p.dk + (bh * p.Nk + j) * D;
        float* dv = p.dv + (bh * p.Nk + j) * Dv;
        #pragma unroll
        for (int w = 0; w < Wk; ++w) dk[c + kGroups * w] = th.dk[r][w];
        #pragma unroll
        for (int w = 0; w < Wv; ++w) dv[c + kGroups * w] = th.dv[r][w];
      }
    });
  }
};

// f.template operator()<D>() for the compiled head dims (sdpa_flash_covers).
template <class F>
bool with_head_dim(int64_t D, F&& f) {
  switch (D) {
    case 16: return f.template operator()<16>();
    case 32: return f.template operator()<32>();
    case 64: return f.template operator()<64>();
    case 80: return f.template operator()<80>();
    case 96: return f.template operator()<96>();
    case 128: return f.template operator()<128>();
    default: return false;
  }
}

FlashParams params(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                   const SdpaArgs& args) {
  FlashParams p{};
  p.set(static_cast<const float*>(q.raw_data()), static_cast<const float*>(k.raw_data()),
        static_cast<const float*>(v.raw_data()), pad.defined() ? static_cast<const bool*>(pad.raw_data()) : nullptr,
        q.size(1), q.size(2), k.size(2), args.causal, args.dropout_p, args.seed, args.offset,
        args.offset_base);
  p.bias = bias.defined() ? static_cast<const float*>(bias.raw_data()) : nullptr;
  p.Bb = bias.defined() ? bias.size(0) : 1, p.Hb = bias.defined() ? bias.size(1) : 1;
  p.scale = static_cast<float>(args.scale);
  return p;
}

struct Zero {
  float* x;
  HM_HD void operator()(int64_t i) const { x[i] = 0.0f; }
};

struct ReduceBias {  // dbias (Bb, Hb, Nq, Nk) = dS / scale (B, H, Nq, Nk) summed over shared dims
  const float* ds;
  float* dbias;
  int64_t B, H, Bb, Hb, Nq, Nk;
  HM_HD void operator()(int64_t e) const {
    const int64_t ij = e % (Nq * Nk), bb = e / (Nq * Nk) / Hb, hb = e / (Nq * Nk) % Hb;
    const int64_t b0 = Bb == 1 ? 0 : bb, b1 = Bb == 1 ? B : bb + 1;
    const int64_t h0 = Hb == 1 ? 0 : hb, h1 = Hb == 1 ? H : hb + 1;
    float acc = 0.0f;
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t h = h0; h < h1; ++h) acc += ds[(b * H + h) * Nq * Nk + ij];
    dbias[e] = acc;
  }
};

}  // namespace

template <Exec E>
bool flash_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                   const SdpaArgs& args, const Tensor& out, const Tensor& lse) {
  const int64_t D = q.size(3), Dv = v.size(3);
  if (!sdpa_flash_covers(D, Dv, q.dtype())) return false;
  const int device = q.device().is_cuda() ? q.device().index : 0;
  FlashParams p = params(q, k, v, pad, bias, args);
  p.out = static_cast<float*>(out.raw_data()), p.lse = static_cast<float*>(lse.raw_data());
  const int64_t BH = q.size(0) * q.size(1);
  return with_head_dim(D, [&]<int HD>() {
    using Pass = Forward<HD, HD, FlashParams>;
    if (!smem_fits<E>(smem_bytes<Pass>(), device)) return false;
    run_pass<E, Pass>(p, BH, p.tiles.query_tiles(), true, device);
    ++sdpa_flash_runs();
    return true;
  });
}

template <Exec E>
bool flash_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                    const Tensor& out, const Tensor& lse, const Tensor& grad, const SdpaArgs& args, const Tensor& dq,
                    const Tensor& dk, const Tensor& dv, const Tensor& dbias, bool one_pass) {
  const int64_t D = q.size(3), Dv = v.size(3);
  if (!sdpa_flash_covers(D, Dv, q.dtype())) return false;
  const int device = q.device().is_cuda() ? q.device().index : 0;
  const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), Nk = k.size(2), BH = B * H;
  return with_head_dim(D, [&]<int HD>() {
    using PassQ = BackwardQ<HD, HD>;
    using PassKV = BackwardKV<HD, HD>;
    if (!smem_fits<E>(std::max(smem_bytes<PassQ>(), smem_bytes<PassKV>()), device)) return false;
    FlashParams p = params(q, k, v, pad, bias, args);
    p.lse_in = static_cast<const float*>(lse.raw_data()), p.grad = static_cast<const float*>(grad.raw_data());
    p.dq = static_cast<float*>(dq.raw_data()), p.dk = static_cast<float*>(dk.raw_data());
    p.dv = static_cast<float*>(dv.raw_data());
    Tensor delta = Tensor::empty(Shape{BH * Nq}, DType::Float32, q.device());  // (B H Nq)
    for_each_index(E, device, BH * Nq,
                   DeltaRow{static_cast<const float*>(grad.raw_data()), static_cast<const float*>(out.raw_data()),
                            static_cast<float*>(delta.raw_data()), Dv});
    p.delta = static_cast<const float*>(delta.raw_data());
    // dS / scale per (b, h): straight into dbias when it has a slice per (b, h), else into a
    // buffer summed over the shared dims afterwards.
    Tensor ds;  // (B, H, Nq, Nk)
    if (dbias.defined()) {
      const bool per_slice = dbias.size(0) == B && dbias.size(1) == H;
      if (!per_slice) ds = Tensor::empty(Shape{B, H, Nq, Nk}, DType::Float32, q.device());
      p.ds = static_cast<float*>(per_slice ? dbias.raw_data() : ds.raw_data());
    }
    if (one_pass && !p.ds) {  // the single pass (the route asks for it only without dbias)
      for_each_index(E, device, dq.numel(), Zero{p.dq});
      run_pass<E, BackwardKV<HD, HD, true>>(p, BH, p.tiles.key_tiles(), false, device);
      ++sdpa_flash_single_pass_runs();
    } else {
      run_pass<E, PassQ>(p, BH, p.tiles.query_tiles(), true, device);
      run_pass<E, PassKV>(p, BH, p.tiles.key_tiles(), false, device);
    }
    if (ds.defined())
      for_each_index(E, device, dbias.numel(),
                     ReduceBias{static_cast<const float*>(ds.raw_data()), static_cast<float*>(dbias.raw_data()), B, H,
                                dbias.size(0), dbias.size(1), Nq, Nk});
    ++sdpa_flash_runs();
    return true;
  });
}

template bool flash_forward<Exec::Device>(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                          const SdpaArgs&, const Tensor&, const Tensor&);
template bool flash_forward<Exec::Host>(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                        const SdpaArgs&, const Tensor&, const Tensor&);
template bool flash_backward<Exec::Device>(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                           const Tensor&, const Tensor&, const Tensor&, const SdpaArgs&, const Tensor&,
                                           const Tensor&, const Tensor&, const Tensor&, bool);
template bool flash_backward<Exec::Host>(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                         const Tensor&, const Tensor&, const Tensor&, const SdpaArgs&, const Tensor&,
                                         const Tensor&, const Tensor&, const Tensor&, bool);

}  // namespace hm::cuda
