// Tiled CUDA kernels of fourier_attention (even p, float32, D = Dv in {8, 16, 32, 64}):
// FlashAttention-2's algorithm with the sinc-power score, the math of the reference kernels
// (cuda/fourier_attention.cu), in O(B H N D) memory:
//   forward:  the shared forward pass (cuda/device/attention_tiles.cuh) with the score
//             S_ij = p sum_d log|sinc(R_d (q_id - k_jd))| (-inf where masked): online softmax,
//             O += P_drop V, lse saved.
//   backward: delta_i = dO_i . O_i; then, with P = exp(S - lse) recomputed tile by tile,
//             C = p P (dP keep - delta) (dP = dO V^T) and f_ijd = dlog|sinc|(R_d (q_id - k_jd)):
//               dQ pass,    per query tile over its key tiles: dq_id += sum_j C_ij f_ijd R_d;
//               dK/dV pass, per key tile over its query tiles: dv_j += sum_i P_drop_ij dO_i,
//                           dk_jd -= sum_i C_ij f_ijd R_d, and key j's share of dR_d,
//                           sum_i C_ij f_ijd (q_id - k_jd), into a (B, H, Nk, D) buffer;
//               dR_d: that buffer summed over (b, h, j) (reduce_total: fixed order, double).
//             No atomics: deterministic.
// Unlike sdpa's, the score is not a GEMM: every (i, j, d) costs a sin and a log (forward) or a
// sin, a cos and a division (backward), so these kernels are bound by the rate of the special
// function units, not by memory or FMA throughput.
#include "harmonic/cuda/device/attention_tiles.cuh"
#include "harmonic/cuda/device/fourier_attention_tiled.cuh"
#include "harmonic/cuda/device/rows.cuh"

namespace hm::cuda {
namespace {

using namespace attention_tiles;

// acc[r][u] = sum_d log|sinc(R_d x)| for A's rows r < 4 (lda apart) and B's rows 8 u (ldb
// apart), x = a - b when A holds the queries, b - a when it holds the keys (x = q - k either way,
// as the reference kernels compute it).
template <int D, bool kQueryRows>
HM_HD void sinc_tile(const float* A, int lda, const float* B, int ldb, const float* R, float (&acc)[kR][kU]) {
#pragma unroll
  for (int r = 0; r < kR; ++r)
#pragma unroll
    for (int u = 0; u < kU; ++u) acc[r][u] = 0.0f;
  for (int d = 0; d < D; ++d) {
    const float rd = R[d];
    float a[kR], b[kU];
#pragma unroll
    for (int r = 0; r < kR; ++r) a[r] = A[r * lda + d];
#pragma unroll
    for (int u = 0; u < kU; ++u) b[u] = B[u * kGroups * ldb + d];
#pragma unroll
    for (int r = 0; r < kR; ++r)
#pragma unroll
      for (int u = 0; u < kU; ++u) acc[r][u] += log_abs_sinc<float>(rd * (kQueryRows ? a[r] - b[u] : b[u] - a[r]));
  }
}

struct FourierParams : TileParams {  // the same 64 x 64 tiles and causal geometry as sdpa's
  const float* R;                    // (D)
  float p;
  float log_eps = kNegInf;  // log of the authors' eps in A = K / (sum K + eps); -inf: exact
  float* dr;                // backward: (B, H, Nk, D), each key's share of dR

  // lse = log(e^m l + eps) in logs, which overflow nothing where every kernel value of a row is
  // far below eps (m very negative); the output's factor is e^(m - lse). The backward needs only
  // lse: dA/dl is the same for either normaliser (fourier_attention_denominator).
  HM_HD void normaliser(float m, float l, float& lse, float& inv) const {
    if (log_eps == kNegInf) return TileParams::normaliser(m, l, lse, inv);
    const float a = m + flog(l);
    lse = a > log_eps ? a + flog1p(fexp(log_eps - a)) : log_eps + flog1p(fexp(a - log_eps));
    inv = fexp(m - lse);
  }

  // p times the log-sinc sum of (bh, i, j); -inf where blocked (out of range, causal, padding).
  HM_HD float logit(int64_t bh, int64_t i, int64_t j, float sum) const { return blocked(bh, i, j) ? kNegInf : p * sum; }
  // The log-sinc sums of a tile's pairs, queries in A (Forward's scores).
  template <int D>
  HM_HD void scores(const float* A, int lda, const float* B, int ldb, float (&acc)[kR][kU]) const {
    sinc_tile<D, true>(A, lda, B, ldb, R, acc);
  }
};

// -- backward: dQ pass -----------------------------------------------------------------------

template <int D>
struct BackwardQ {
  static constexpr int ld = D + 1, W = D / kGroups;
  // Q, dO (kBr, ld), K, V (kBc, ld), C (kBr, kLdp)
  static constexpr size_t smem_floats = 2 * size_t{kBr} * ld + 2 * size_t{kBc} * ld + size_t{kBr} * kLdp;
  struct Thread {
    float lse[kR], delta[kR], dq[kR][W], s[kR][kU], dp[kR][kU];
  };

  template <class Threads>
  HM_HD static void block(const FourierParams& p, int64_t bh, int64_t qt, float* smem, Thread* st,
                          const Threads& threads) {
    float* Qs = smem;
    float* dOs = Qs + kBr * ld;
    float* Ks = dOs + kBr * ld;
    float* Vs = Ks + kBc * ld;
    float* Cs = Vs + kBc * ld;
    const int64_t i0 = qt * kBr;
    threads.run(st, [&](int t, Thread& th) {
      load_rows<D>(Qs, ld, p.q + bh * p.Nq * D, i0, p.Nq, kBr, t);
      load_rows<D>(dOs, ld, p.grad + bh * p.Nq * D, i0, p.Nq, kBr, t);
      const int g = t / kGroups;
      for (int r = 0; r < kR; ++r) {
        const int64_t i = i0 + kR * g + r;
        th.lse[r] = i < p.Nq ? p.lse_in[bh * p.Nq + i] : kNegInf;
        th.delta[r] = i < p.Nq ? p.delta[bh * p.Nq + i] : 0.0f;
        for (int w = 0; w < W; ++w) th.dq[r][w] = 0.0f;
      }
    });
    const int64_t kt_end = p.tiles.key_tile_end(qt);
    for (int64_t kt = 0; kt < kt_end; ++kt) {
      const int64_t j0 = kt * kBc;
      threads.run(st, [&](int t, Thread&) {
        load_rows<D>(Ks, ld, p.k + bh * p.Nk * D, j0, p.Nk, kBc, t);
        load_rows<D>(Vs, ld, p.v + bh * p.Nk * D, j0, p.Nk, kBc, t);
      });
      threads.run(st, [&](int t, Thread& th) {  // P, dP = dO V^T, C = p P (dP keep - delta)
        const int g = t / kGroups, c = t % kGroups;
        sinc_tile<D, true>(Qs + kR * g * ld, ld, Ks + c * ld, ld, p.R, th.s);
        dot_tile<D>(dOs + kR * g * ld, ld, Vs + c * ld, ld, th.dp);
        for (int r = 0; r < kR; ++r)
          for (int u = 0; u < kU; ++u) {
            const int64_t i = i0 + kR * g + r, j = j0 + c + kGroups * u;
            const float P = FourierParams::prob(p.logit(bh, i, j, th.s[r][u]), th.lse[r]);
            Cs[(kR * g + r) * kLdp + c + kGroups * u] =
                P == 0.0f ? 0.0f : p.p * P * (th.dp[r][u] * p.keep(bh, i, j) - th.delta[r]);
          }
      });
      threads.run(st, [&](int t, Thread& th) {  // dq_id += sum_j C_ij f_ijd R_d
        const int g = t / kGroups, c = t % kGroups;
        for (int j = 0; j < kBc; ++j)
          for (int r = 0; r < kR; ++r) {
            const float cij = Cs[(kR * g + r) * kLdp + j];
            if (cij == 0.0f) continue;
            for (int w = 0; w < W; ++w) {
              const int d = c + kGroups * w;
              const float rd = p.R[d];
              th.dq[r][w] += cij * dlog_abs_sinc<float>(rd * (Qs[(kR * g + r) * ld + d] - Ks[j * ld + d])) * rd;
            }
          }
      });
    }
    threads.run(st, [&](int t, Thread& th) {
      const int g = t / kGroups, c = t % kGroups;
      for (int r = 0; r < kR; ++r) {
        const int64_t i = i0 + kR * g + r;
        if (i >= p.Nq) continue;
        float* dq = p.dq + (bh * p.Nq + i) * D;
        for (int w = 0; w < W; ++w) dq[c + kGroups * w] = th.dq[r][w];
      }
    });
  }
};

// -- backward: dK/dV pass --------------------------------------------------------------------

template <int D>
struct BackwardKV {
  static constexpr int ld = D + 1, W = D / kGroups;
  // K, V (kBc, ld), Q, dO (kBr, ld), P_drop^T and C^T (kBc, kLdp), lse and delta of the query tile
  static constexpr size_t smem_floats =
      2 * size_t{kBc} * ld + 2 * size_t{kBr} * ld + 2 * size_t{kBc} * kLdp + 2 * size_t{kBr};
  struct Thread {
    float dk[kR][W], dv[kR][W], dr[kR][W], s[kR][kU];
  };

  // Key tile kt of slice bh; thread t owns keys 4 (t / 8) + r and query columns t % 8 + 8 u.
  template <class Threads>
  HM_HD static void block(const FourierParams& p, int64_t bh, int64_t kt, float* smem, Thread* st,
                          const Threads& threads) {
    float* Ks = smem;
    float* Vs = Ks + kBc * ld;
    float* Qs = Vs + kBc * ld;
    float* dOs = Qs + kBr * ld;
    float* Pt = dOs + kBr * ld;   // P_drop^T: (key, query)
    float* Ct = Pt + kBc * kLdp;  // P^T, then C^T
    float* Ls = Ct + kBc * kLdp;
    float* Ds = Ls + kBr;
    const int64_t j0 = kt * kBc;
    threads.run(st, [&](int t, Thread& th) {
      load_rows<D>(Ks, ld, p.k + bh * p.Nk * D, j0, p.Nk, kBc, t);
      load_rows<D>(Vs, ld, p.v + bh * p.Nk * D, j0, p.Nk, kBc, t);
      for (int r = 0; r < kR; ++r)
        for (int w = 0; w < W; ++w) th.dk[r][w] = 0.0f, th.dv[r][w] = 0.0f, th.dr[r][w] = 0.0f;
    });
    const int64_t qt_end = p.tiles.query_tiles();
    for (int64_t qt = p.tiles.query_tile_begin(kt); qt < qt_end; ++qt) {
      const int64_t i0 = qt * kBr;
      threads.run(st, [&](int t, Thread&) {
        load_rows<D>(Qs, ld, p.q + bh * p.Nq * D, i0, p.Nq, kBr, t);
        load_rows<D>(dOs, ld, p.grad + bh * p.Nq * D, i0, p.Nq, kBr, t);
        for (int r = t; r < kBr; r += kBlock) {
          Ls[r] = i0 + r < p.Nq ? p.lse_in[bh * p.Nq + i0 + r] : kNegInf;
          Ds[r] = i0 + r < p.Nq ? p.delta[bh * p.Nq + i0 + r] : 0.0f;
        }
      });
      threads.run(st, [&](int t, Thread& th) {  // P^T, P_drop^T, dP^T = V dO^T, C^T
        const int g = t / kGroups, c = t % kGroups;
        sinc_tile<D, false>(Ks + kR * g * ld, ld, Qs + c * ld, ld, p.R, th.s);
        for (int r = 0; r < kR; ++r)
          for (int u = 0; u < kU; ++u) {
            const int64_t j = j0 + kR * g + r, i = i0 + c + kGroups * u;
            const int x = (kR * g + r) * kLdp + c + kGroups * u;
            const float P = FourierParams::prob(p.logit(bh, i, j, th.s[r][u]), Ls[c + kGroups * u]);
            Ct[x] = P;  // parked here (this thread's own elements) while th.s holds dP
            Pt[x] = P == 0.0f ? 0.0f : P * p.keep(bh, i, j);
          }
        dot_tile<D>(Vs + kR * g * ld, ld, dOs + c * ld, ld, th.s);
        for (int r = 0; r < kR; ++r)
          for (int u = 0; u < kU; ++u) {
            const int x = (kR * g + r) * kLdp + c + kGroups * u;
            const float P = Ct[x];
            // p P (dP keep - delta) = p (P_drop dP - P delta)
            Ct[x] = P == 0.0f ? 0.0f : p.p * (Pt[x] * th.s[r][u] - P * Ds[c + kGroups * u]);
          }
      });
      threads.run(st, [&](int t, Thread& th) {  // dv += P_drop^T dO; dk, dr from C^T
        const int g = t / kGroups, c = t % kGroups;
        acc_tile<W>(Pt + kR * g * kLdp, kLdp, dOs + c, ld, th.dv);
        for (int i = 0; i < kBr; ++i)
          for (int r = 0; r < kR; ++r) {
            const float cij = Ct[(kR * g + r) * kLdp + i];
            if (cij == 0.0f) continue;
            for (int w = 0; w < W; ++w) {
              const int d = c + kGroups * w;
              const float rd = p.R[d], diff = Qs[i * ld + d] - Ks[(kR * g + r) * ld + d];
              const float f = cij * dlog_abs_sinc<float>(rd * diff);
              th.dk[r][w] -= f * rd;
              th.dr[r][w] += f * diff;
            }
          }
      });
    }
    threads.run(st, [&](int t, Thread& th) {
      const int g = t / kGroups, c = t % kGroups;
      for (int r = 0; r < kR; ++r) {
        const int64_t j = j0 + kR * g + r;
        if (j >= p.Nk) continue;
        const int64_t at = (bh * p.Nk + j) * D;
        for (int w = 0; w < W; ++w) {
          p.dk[at + c + kGroups * w] = th.dk[r][w];
          p.dv[at + c + kGroups * w] = th.dv[r][w];
          p.dr[at + c + kGroups * w] = th.dr[r][w];
        }
      }
    });
  }
};

// -- entry points ------------------------------------------------------------------------------

// f.template operator()<D>() for the compiled head dims (fourier_attention_tiled_covers).
template <class F>
bool with_head_dim(int64_t D, F&& f) {
  switch (D) {
    case 8:
      return f.template operator()<8>();
    case 16:
      return f.template operator()<16>();
    case 32:
      return f.template operator()<32>();
    case 64:
      return f.template operator()<64>();
    default:
      return false;
  }
}

FourierParams params(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                     const FourierAttentionArgs& args) {
  FourierParams p{};
  p.set(static_cast<const float*>(q.raw_data()), static_cast<const float*>(k.raw_data()),
        static_cast<const float*>(v.raw_data()), pad.defined() ? static_cast<const bool*>(pad.raw_data()) : nullptr,
        q.size(1), q.size(2), k.size(2), args.causal, args.dropout_p, args.seed, args.offset,
        args.offset_base);
  p.R = static_cast<const float*>(R.raw_data());
  p.p = static_cast<float>(args.p);
  if (args.eps > 0.0) p.log_eps = static_cast<float>(std::log(args.eps));
  return p;
}

struct ColumnOf {  // element d of row x of a (rows, D) matrix, for reduce_total
  const float* m;
  int64_t D, d;
  HM_HD double operator()(int64_t x) const { return static_cast<double>(m[x * D + d]); }
};

}  // namespace

template <Exec E>
bool fourier_tiled_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                           const FourierAttentionArgs& args, const Tensor& out, const Tensor& lse) {
  const int64_t D = q.size(3), Dv = v.size(3);
  if (!fourier_attention_tiled_covers(args.p, D, Dv, q.dtype())) return false;
  const int device = q.device().is_cuda() ? q.device().index : 0;
  FourierParams p = params(q, k, v, R, pad, args);
  p.out = static_cast<float*>(out.raw_data()), p.lse = static_cast<float*>(lse.raw_data());
  const int64_t BH = q.size(0) * q.size(1);
  return with_head_dim(D, [&]<int HD>() {
    using Pass = Forward<HD, HD, FourierParams>;
    if (!smem_fits<E>(Pass::smem_floats * sizeof(float), device)) return false;
    run_pass<E, Pass>(p, BH, p.tiles.query_tiles(), true, device);
    ++fourier_attention_tiled_runs();
    return true;
  });
}

template <Exec E>
bool fourier_tiled_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                            const Tensor& out, const Tensor& lse, const Tensor& grad, const FourierAttentionArgs& args,
                            const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dR) {
  const int64_t D = q.size(3), Dv = v.size(3);
  if (!fourier_attention_tiled_covers(args.p, D, Dv, q.dtype()) || !out.defined() || !lse.defined()) return false;
  const int device = q.device().is_cuda() ? q.device().index : 0;
  const int64_t BH = q.size(0) * q.size(1), Nq = q.size(2), Nk = k.size(2);
  return with_head_dim(D, [&]<int HD>() {
    using PassQ = BackwardQ<HD>;
    using PassKV = BackwardKV<HD>;
    if (!smem_fits<E>(std::max(PassQ::smem_floats, PassKV::smem_floats) * sizeof(float), device)) return false;
    FourierParams p = params(q, k, v, R, pad, args);
    p.lse_in = static_cast<const float*>(lse.raw_data()), p.grad = static_cast<const float*>(grad.raw_data());
    p.dq = static_cast<float*>(dq.raw_data()), p.dk = static_cast<float*>(dk.raw_data());
    p.dv = static_cast<float*>(dv.raw_data());
    Tensor delta = Tensor::empty(Shape{BH * Nq}, DType::Float32, q.device());  // (B H Nq)
    for_each_index(E, device, BH * Nq,
                   DeltaRow{static_cast<const float*>(grad.raw_data()), static_cast<const float*>(out.raw_data()),
                            static_cast<float*>(delta.raw_data()), Dv});
    p.delta = static_cast<const float*>(delta.raw_data());
    Tensor dr = Tensor::empty(Shape{BH * Nk, D}, DType::Float32, q.device());  // each key's share of dR
    p.dr = static_cast<float*>(dr.raw_data());
    run_pass<E, PassQ>(p, BH, p.tiles.query_tiles(), true, device);
    run_pass<E, PassKV>(p, BH, p.tiles.key_tiles(), false, device);
    for (int64_t d = 0; d < D; ++d)  // summed in double, rounded once
      reduce_total(E, device, BH * Nk, ColumnOf{p.dr, D, d}, 1.0, static_cast<float*>(dR.raw_data()) + d);
    ++fourier_attention_tiled_runs();
    return true;
  });
}

template bool fourier_tiled_forward<Exec::Device>(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                  const Tensor&, const FourierAttentionArgs&, const Tensor&,
                                                  const Tensor&);
template bool fourier_tiled_forward<Exec::Host>(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                const Tensor&, const FourierAttentionArgs&, const Tensor&,
                                                const Tensor&);
template bool fourier_tiled_backward<Exec::Device>(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                   const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                   const FourierAttentionArgs&, const Tensor&, const Tensor&,
                                                   const Tensor&, const Tensor&);
template bool fourier_tiled_backward<Exec::Host>(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                 const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                 const FourierAttentionArgs&, const Tensor&, const Tensor&,
                                                 const Tensor&, const Tensor&);

}  // namespace hm::cuda
