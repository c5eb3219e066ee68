// CPU fused scaled dot-product attention, flash-attention style, on GEMM tiles.
//   forward: one task per (b, h, block of kRows query rows). The keys are walked in blocks of
//            kCols: S = (q scale) k^T and O += P v are single-threaded BLAS calls
//            (ops/cpu/gemm_rows.h), between them the online softmax (running row max m and
//            sum l, O rescaled when m grows). Key blocks entirely above the causal diagonal
//            are never visited. Saves lse = m + log l per row.
//   direct (Nq <= kSdpaDirectRows, a decoding step against a KV cache): one task per (b, h),
//            each row's scores, softmax and P v in plain vectorised loops over all its keys at
//            once. A 1-row tile made two BLAS calls per key block, whose call overhead
//            outweighed the products (a third of the Chronos forecast's time).
//   backward (flash-attention 2): one task per (b, h), which owns its dq, dk, dv slices (no
//            races). Per (query block, key block) tile: P = exp(S - lse) recomputed,
//            dV += P_drop^T dO, dP = dO v^T, dS = P (dP keep - rowsum(dO o)) scale,
//            dQ += dS k, dK += dS^T q; again skipping tiles above the diagonal.
//            With a bias gradient whose bias is shared across b (or h), one task per bias
//            slice instead, walking the (b, h) that share it in order: dbias += dS / scale
//            without races or thread-count-dependent sums.
// An additive bias (Bb, Hb, Nq, Nk) is added to each score tile right after q k^T (before the
// masks), in the forward, the direct path and the backward's recomputation alike.
// Dropout masks come from ops/cpu/dropout_mask.h, element index (b, h, i, j) flattened: the
// same keep decisions as dropout_keep (ops/dropout_functors.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/dropout_mask.h"
#include "harmonic/ops/cpu/gemm_rows.h"
#include "harmonic/ops/cpu/lane_extremum.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"

namespace hm {
namespace {

constexpr int64_t kRows = 64;   // query rows per tile
constexpr int64_t kCols = 128;  // keys per tile

template <class T>
inline T exp_of(T x) {
  if constexpr (std::is_same_v<T, float>)
    return vm::exp(x);
  else
    return std::exp(x);
}

// s[j] <- exp(s[j] - m) for j < n (exp(-inf) = 0); returns their sum.
template <class T>
inline T exp_shifted_sum(T* s, int64_t n, T m) {
  T sum = T(0);
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    const T e = exp_of<T>(s[j] - m);
    s[j] = e;
    sum += e;
  }
  return sum;
}

// The geometry of one (b, h) slice and the shared arguments.
template <class T>
struct Slices {
  int64_t H, Nq, Nk, D, Dv, shift;
  const T *q, *k, *v;
  const bool* pad;  // (B, Nk) or null
  const T* bias;    // (Bb, Hb, Nq, Nk) or null
  int64_t Bb, Hb;   // bias batch and head dims: 1 (shared) or B, H
  const SdpaArgs* args;
  T scale, drop_scale;
  float pf;
  bool drop;

  // The (Nq, Nk) bias of slice bh = b H + h, or null.
  const T* bias_of(int64_t bh) const {
    if (!bias) return nullptr;
    const int64_t b = Bb == 1 ? 0 : bh / H, h = Hb == 1 ? 0 : bh % H;
    return bias + (b * Hb + h) * Nq * Nk;
  }
  // S (rows, nk) += the bias rows [i0, i0 + rows), columns [j0, j0 + nk) of slice bias (Nq, Nk).
  void add_bias(T* S, const T* bias_bh, int64_t i0, int64_t rows, int64_t j0, int64_t nk) const {
    for (int64_t r = 0; r < rows; ++r) {
      T* s = S + r * nk;
      const T* b = bias_bh + (i0 + r) * Nk + j0;
#pragma omp simd
      for (int64_t c = 0; c < nk; ++c) s[c] += b[c];
    }
  }
  // One past the last key any row of [i0, i1) may see (causal), else Nk.
  int64_t key_end(int64_t i1) const { return args->causal ? std::clamp<int64_t>(i1 - 1 + shift + 1, 0, Nk) : Nk; }
  // Sets S (rows, nk) to -inf where (i0 + r, j0 + c) is blocked; returns whether any was.
  void mask_tile(T* S, int64_t i0, int64_t rows, int64_t j0, int64_t nk, const bool* pad_row) const {
    for (int64_t r = 0; r < rows; ++r) {
      T* s = S + r * nk;
      const int64_t lim = args->causal ? i0 + r + shift - j0 : nk - 1;  // last visible column
      for (int64_t c = std::max<int64_t>(lim + 1, 0); c < nk; ++c) s[c] = -std::numeric_limits<T>::infinity();
      if (pad_row)
        for (int64_t c = 0; c < std::min(nk, lim + 1); ++c)
          if (pad_row[j0 + c]) s[c] = -std::numeric_limits<T>::infinity();
    }
  }
};

template <class T>
Slices<T> slices(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                 const SdpaArgs& args) {
  Slices<T> s;
  s.H = q.size(1), s.Nq = q.size(2), s.Nk = k.size(2), s.D = q.size(3), s.Dv = v.size(3);
  s.shift = s.Nk - s.Nq;
  s.q = q.data<T>(), s.k = k.data<T>(), s.v = v.data<T>();
  s.pad = pad.defined() ? pad.data<bool>() : nullptr;
  s.bias = bias.defined() ? bias.data<T>() : nullptr;
  s.Bb = bias.defined() ? bias.size(0) : 1, s.Hb = bias.defined() ? bias.size(1) : 1;
  s.args = &args;
  s.scale = static_cast<T>(args.scale);
  s.drop = args.dropout_p > 0.0;
  s.pf = static_cast<float>(args.dropout_p);
  s.drop_scale = s.drop ? static_cast<T>(1.0 / (1.0 - args.dropout_p)) : T(1);
  return s;
}

// Lanes of one 64-byte vector: the direct path's inner loops have this fixed length, so the
// compiler keeps them in registers. (An `omp simd reduction` over a runtime D compiled, under
// GCC 12, to a store and 16 serial scalar adds per key, slower than the BLAS calls it replaced.)
template <class T>
constexpr int64_t kLanes = 64 / sizeof(T);

// part[0] = the sum of part[0, 2W): a tree of fixed-width halves, so each step is one vector add
// (a loop over a runtime width went through memory, a third of this path's time).
template <int64_t W, class T>
inline void fold_lanes(T* part) {
#pragma omp simd
  for (int64_t l = 0; l < W; ++l) part[l] += part[l + W];
  if constexpr (W > 1) fold_lanes<W / 2>(part);
}

// q . k over D (q, k (D)): lane-wise partial sums, then a tree over the lanes.
template <class T>
inline T lane_dot(const T* q, const T* k, int64_t D) {
  constexpr int64_t L = kLanes<T>;
  T part[L] = {};
  int64_t e0 = 0;
  for (; e0 + L <= D; e0 += L)
#pragma omp simd
    for (int64_t l = 0; l < L; ++l) part[l] += q[e0 + l] * k[e0 + l];
  for (int64_t l = 0; e0 + l < D; ++l) part[l] += q[e0 + l] * k[e0 + l];
  fold_lanes<L / 2>(part);
  return part[0];
}

// o (NB lane blocks) = sum_j p_j v_j over j < n, v's rows ldv apart: the blocks stay in
// registers while the keys stream past once.
template <int64_t NB, class T>
inline void weighted_sum_blocks(const T* p, const T* v, int64_t n, int64_t ldv, T* o) {
  constexpr int64_t L = kLanes<T>;
  T acc[NB][L] = {};
  for (int64_t j = 0; j < n; ++j) {
    const T pj = p[j];
    const T* vj = v + j * ldv;
    for (int64_t b = 0; b < NB; ++b)
#pragma omp simd
      for (int64_t l = 0; l < L; ++l) acc[b][l] += pj * vj[b * L + l];
  }
  for (int64_t b = 0; b < NB; ++b)
    for (int64_t l = 0; l < L; ++l) o[b * L + l] = acc[b][l];
}

// o (Dv) = sum_j p_j v_j over j < n, v (n, Dv): up to four lane blocks of o per pass over the
// keys, the last partial block in plain loops.
template <class T>
void weighted_sum_rows(const T* p, const T* v, int64_t n, int64_t Dv, T* o) {
  constexpr int64_t L = kLanes<T>;
  int64_t e0 = 0;
  for (; e0 + 4 * L <= Dv; e0 += 4 * L) weighted_sum_blocks<4>(p, v + e0, n, Dv, o + e0);
  if (e0 + 2 * L <= Dv) weighted_sum_blocks<2>(p, v + e0, n, Dv, o + e0), e0 += 2 * L;
  if (e0 + L <= Dv) weighted_sum_blocks<1>(p, v + e0, n, Dv, o + e0), e0 += L;
  if (e0 == Dv) return;
  std::fill(o + e0, o + Dv, T(0));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t e = e0; e < Dv; ++e) o[e] += p[j] * v[j * Dv + e];
}

// The direct forward: out and lse as the tiled path defines them (same masks, exp_of, fully
// masked rows -> zeros and lse -inf, dropout factors at the same element indices), but with one
// max over the row instead of the online rescaling, so it agrees up to rounding.
template <class T>
void sdpa_direct_rows(const Slices<T>& g, int64_t B, T* po, T* plse) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const SdpaArgs& args = *g.args;
  parallel_for(B * g.H, g.Nq * g.Nk * (g.D + g.Dv + 8), [&](int64_t t0, int64_t t1) {
    std::vector<T> qs(g.D), s(g.Nk), z(g.drop ? g.Nk : 0);
    for (int64_t bh = t0; bh < t1; ++bh) {
      const T* kb = g.k + bh * g.Nk * g.D;   // (Nk, D)
      const T* vb = g.v + bh * g.Nk * g.Dv;  // (Nk, Dv)
      const bool* pad_row = g.pad ? g.pad + (bh / g.H) * g.Nk : nullptr;
      const T* bias_bh = g.bias_of(bh);  // (Nq, Nk) or null
      for (int64_t i = 0; i < g.Nq; ++i) {
        const int64_t row = bh * g.Nq + i;
        const T* bias_row = bias_bh ? bias_bh + i * g.Nk : nullptr;
        const T* qi = g.q + row * g.D;  // (D)
        T* o = po + row * g.Dv;         // (Dv)
        for (int64_t e = 0; e < g.D; ++e) qs[e] = qi[e] * g.scale;
        const int64_t jend = g.key_end(i + 1);  // keys past it are above the causal diagonal
        for (int64_t j = 0; j < jend; ++j) {
          if (pad_row && pad_row[j]) {
            s[j] = kNegInf;
            continue;
          }
          s[j] = lane_dot(qs.data(), kb + j * g.D, g.D);
          if (bias_row) s[j] += bias_row[j];
        }
        // lane_extremum, not omp max: see the tiled path.
        const T m = cpu::lane_extremum<true>(s.data(), jend, kNegInf);
        if (m == kNegInf) {  // every key masked: zeros, as the tiled path
          std::fill(o, o + g.Dv, T(0));
          plse[row] = kNegInf;
          continue;
        }
        const T l = exp_shifted_sum(s.data(), jend, m);
        if (g.drop) {
          dropout_factors<T>(args.seed, args.offset, static_cast<uint64_t>(row * g.Nk), jend, g.pf, g.drop_scale,
                             z.data());
#pragma omp simd
          for (int64_t j = 0; j < jend; ++j) s[j] *= z[j];
        }
        weighted_sum_rows(s.data(), vb, jend, g.Dv, o);
        const T inv = T(1) / l;
        for (int64_t e = 0; e < g.Dv; ++e) o[e] *= inv;
        plse[row] = m + std::log(l);
      }
    }
  });
}

void cpu_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
              const SdpaArgs& args, const Tensor& out, const Tensor& lse) {
  dispatch_float(q.dtype(), "scaled_dot_product_attention", [&]<class T>() {
    const Slices<T> g = slices<T>(q, k, v, pad, bias, args);
    const int64_t B = q.size(0), blocks = (g.Nq + kRows - 1) / kRows;
    T *po = out.data<T>(), *plse = lse.data<T>();
    if (g.Nq <= kSdpaDirectRows) return sdpa_direct_rows<T>(g, B, po, plse);
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    parallel_for(B * g.H * blocks, kRows * g.Nk * (g.D + g.Dv + 8), [&](int64_t t0, int64_t t1) {
      std::vector<T> qs(kRows * g.D), S(kRows * kCols), m(kRows), l(kRows), z(kCols);
      for (int64_t task = t0; task < t1; ++task) {
        const int64_t bh = task / blocks, i0 = (task % blocks) * kRows, i1 = std::min(g.Nq, i0 + kRows);
        const int64_t rows = i1 - i0, b = bh / g.H;
        const T* kb = g.k + bh * g.Nk * g.D;   // (Nk, D)
        const T* vb = g.v + bh * g.Nk * g.Dv;  // (Nk, Dv)
        T* o = po + (bh * g.Nq + i0) * g.Dv;   // (rows, Dv), the running numerator
        const bool* pad_row = g.pad ? g.pad + b * g.Nk : nullptr;
        const T* bias_bh = g.bias_of(bh);  // (Nq, Nk) or null
        const T* qb = g.q + (bh * g.Nq + i0) * g.D;
        for (int64_t e = 0; e < rows * g.D; ++e) qs[e] = qb[e] * g.scale;
        std::fill(o, o + rows * g.Dv, T(0));
        std::fill(m.begin(), m.end(), kNegInf);
        std::fill(l.begin(), l.end(), T(0));
        const int64_t jend = g.key_end(i1);
        for (int64_t j0 = 0; j0 < jend; j0 += kCols) {
          const int64_t nk = std::min(kCols, jend - j0);
          gemm_rows<T>(rows, nk, g.D, qs.data(), false, kb + j0 * g.D, true, S.data(), 0.0);  // (rows, nk)
          if (bias_bh) g.add_bias(S.data(), bias_bh, i0, rows, j0, nk);
          if (pad_row || (args.causal && j0 + nk - 1 > i0 + g.shift)) g.mask_tile(S.data(), i0, rows, j0, nk, pad_row);
          for (int64_t r = 0; r < rows; ++r) {
            T* s = S.data() + r * nk;
            // lane_extremum, not a bare `omp simd reduction(max)`: under clang that gives -FLT_MAX
            // for a fully masked tile, so m would hold a value no key has (harmless only because
            // the row's l stays 0) and the -inf test below would not see the tile as empty.
            const T m_new = std::max(m[r], cpu::lane_extremum<true>(s, nk, kNegInf));
            if (m_new == kNegInf) {  // nothing visible yet: P = 0
              std::fill(s, s + nk, T(0));
              continue;
            }
            const T sum = exp_shifted_sum(s, nk, m_new);
            if (m_new != m[r]) {  // rescale what was accumulated under the old max
              const T corr = exp_of<T>(m[r] - m_new);
              l[r] *= corr;
              T* orow = o + r * g.Dv;
              for (int64_t e = 0; e < g.Dv; ++e) orow[e] *= corr;
              m[r] = m_new;
            }
            l[r] += sum;
            if (g.drop) {
              dropout_factors<T>(args.seed, args.offset, static_cast<uint64_t>((bh * g.Nq + i0 + r) * g.Nk + j0), nk,
                                 g.pf, g.drop_scale, z.data());
#pragma omp simd
              for (int64_t c = 0; c < nk; ++c) s[c] *= z[c];
            }
          }
          gemm_rows<T>(rows, g.Dv, nk, S.data(), false, vb + j0 * g.Dv, false, o, 1.0);  // O += P v
        }
        for (int64_t r = 0; r < rows; ++r) {
          T* orow = o + r * g.Dv;
          if (l[r] == T(0)) {  // every key masked: zeros
            std::fill(orow, orow + g.Dv, T(0));
            plse[bh * g.Nq + i0 + r] = kNegInf;
            continue;
          }
          const T inv = T(1) / l[r];
          for (int64_t e = 0; e < g.Dv; ++e) orow[e] *= inv;
          plse[bh * g.Nq + i0 + r] = m[r] + std::log(l[r]);
        }
      }
    });
  });
}

void cpu_sdpa_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                       const Tensor& out, const Tensor& lse, const Tensor& grad, const SdpaArgs& args, const Tensor& dq,
                       const Tensor& dk, const Tensor& dv, const Tensor& dbias) {
  dispatch_float(q.dtype(), "scaled_dot_product_attention_backward", [&]<class T>() {
    const Slices<T> g = slices<T>(q, k, v, pad, bias, args);
    const int64_t B = q.size(0);
    const T *po = out.data<T>(), *plse = lse.data<T>(), *pg = grad.data<T>();
    T *pdq = dq.data<T>(), *pdk = dk.data<T>(), *pdv = dv.data<T>();
    T* pdb = dbias.defined() ? dbias.data<T>() : nullptr;  // (Bb, Hb, Nq, Nk) or null
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    // Tasks: one per (b, h), or with a shared bias's gradient one per bias slice, each walking
    // the (b, h) that share it (b outer, h inner: a fixed summation order).
    const int64_t Bb = g.Bb, Hb = g.Hb;
    const bool grouped = pdb && (Bb * Hb < B * g.H);
    const int64_t tasks = grouped ? Bb * Hb : B * g.H, members = grouped ? (B / Bb) * (g.H / Hb) : 1;
    parallel_for(tasks, members * g.Nq * g.Nk * (2 * g.D + 2 * g.Dv + 8), [&](int64_t t0, int64_t t1) {
      std::vector<T> qs(kRows * g.D), P(kRows * kCols), dP(kRows * kCols), Pd(g.drop ? kRows * kCols : 0);
      std::vector<T> z(kCols), delta(g.Nq);
      for (int64_t task = t0; task < t1; ++task) {
        // (Nq, Nk): this task's bias-gradient slice. The task is the slice: grouped, or else the
        // bias has one slice per (b, h) (Bb Hb = B H with Bb in {1, B}, Hb in {1, H}).
        T* dbb = pdb ? pdb + task * g.Nq * g.Nk : nullptr;
        if (dbb) std::fill(dbb, dbb + g.Nq * g.Nk, T(0));
        for (int64_t member = 0; member < members; ++member) {
          int64_t bh = task;
          if (grouped) {  // task = tb Hb + th; member walks the shared dims, b outer
            const int64_t tb = task / Hb, th = task % Hb, per_b = g.H / Hb;
            const int64_t b = Bb == 1 ? member / per_b : tb, h = Hb == 1 ? member % per_b : th;
            bh = b * g.H + h;
          }
          const T* qb = g.q + bh * g.Nq * g.D;   // (Nq, D)
          const T* kb = g.k + bh * g.Nk * g.D;   // (Nk, D)
          const T* vb = g.v + bh * g.Nk * g.Dv;  // (Nk, Dv)
          const T* ob = po + bh * g.Nq * g.Dv;   // (Nq, Dv)
          const T* gb = pg + bh * g.Nq * g.Dv;   // (Nq, Dv)
          const T* lb = plse + bh * g.Nq;        // (Nq)
          const T* bias_bh = g.bias_of(bh);      // (Nq, Nk) or null
          T* dqb = pdq + bh * g.Nq * g.D;
          T* dkb = pdk + bh * g.Nk * g.D;
          T* dvb = pdv + bh * g.Nk * g.Dv;
          std::fill(dqb, dqb + g.Nq * g.D, T(0));
          std::fill(dkb, dkb + g.Nk * g.D, T(0));
          std::fill(dvb, dvb + g.Nk * g.Dv, T(0));
          const bool* pad_row = g.pad ? g.pad + (bh / g.H) * g.Nk : nullptr;
          for (int64_t i = 0; i < g.Nq; ++i) {  // delta_i = dO_i . O_i = sum_j P_ij dP_ij
            T s = T(0);
            for (int64_t e = 0; e < g.Dv; ++e) s += gb[i * g.Dv + e] * ob[i * g.Dv + e];
            delta[i] = s;
          }
          for (int64_t i0 = 0; i0 < g.Nq; i0 += kRows) {
            const int64_t i1 = std::min(g.Nq, i0 + kRows), rows = i1 - i0;
            for (int64_t e = 0; e < rows * g.D; ++e) qs[e] = qb[i0 * g.D + e] * g.scale;
            const int64_t jend = g.key_end(i1);
            for (int64_t j0 = 0; j0 < jend; j0 += kCols) {
              const int64_t nk = std::min(kCols, jend - j0);
              gemm_rows<T>(rows, nk, g.D, qs.data(), false, kb + j0 * g.D, true, P.data(), 0.0);  // S (rows, nk)
              if (bias_bh) g.add_bias(P.data(), bias_bh, i0, rows, j0, nk);
              if (pad_row || (args.causal && j0 + nk - 1 > i0 + g.shift))
                g.mask_tile(P.data(), i0, rows, j0, nk, pad_row);
              gemm_rows<T>(rows, nk, g.Dv, gb + i0 * g.Dv, false, vb + j0 * g.Dv, true, dP.data(), 0.0);  // dO v^T
              for (int64_t r = 0; r < rows; ++r) {
                T *p = P.data() + r * nk, *dp = dP.data() + r * nk;
                const T lr = lb[i0 + r], dr = delta[i0 + r];
                if (lr == kNegInf) {  // a fully masked row: no weights, no gradient
                  std::fill(p, p + nk, T(0));
                  std::fill(dp, dp + nk, T(0));
                  if (g.drop) std::fill(Pd.data() + r * nk, Pd.data() + (r + 1) * nk, T(0));
                  continue;
                }
#pragma omp simd
                for (int64_t c = 0; c < nk; ++c) p[c] = exp_of<T>(p[c] - lr);
                if (g.drop) {
                  dropout_factors<T>(args.seed, args.offset, static_cast<uint64_t>((bh * g.Nq + i0 + r) * g.Nk + j0),
                                     nk, g.pf, g.drop_scale, z.data());
                  T* pd = Pd.data() + r * nk;
#pragma omp simd
                  for (int64_t c = 0; c < nk; ++c) {
                    pd[c] = p[c] * z[c];
                    dp[c] = p[c] * (dp[c] * z[c] - dr);  // dS / scale, the logits' gradient
                  }
                } else {
#pragma omp simd
                  for (int64_t c = 0; c < nk; ++c) dp[c] = p[c] * (dp[c] - dr);  // dS / scale
                }
                if (dbb) {
                  T* db = dbb + (i0 + r) * g.Nk + j0;
#pragma omp simd
                  for (int64_t c = 0; c < nk; ++c) db[c] += dp[c];
                }
#pragma omp simd
                for (int64_t c = 0; c < nk; ++c) dp[c] *= g.scale;  // dS
              }
              const T* pw = g.drop ? Pd.data() : P.data();
              gemm_rows<T>(nk, g.Dv, rows, pw, true, gb + i0 * g.Dv, false, dvb + j0 * g.Dv, 1.0);       // dV += P^T dO
              gemm_rows<T>(rows, g.D, nk, dP.data(), false, kb + j0 * g.D, false, dqb + i0 * g.D, 1.0);  // dQ += dS k
              gemm_rows<T>(nk, g.D, rows, dP.data(), true, qb + i0 * g.D, false, dkb + j0 * g.D, 1.0);   // dK += dS^T q
            }
          }
        }
      }
    });
  });
}

[[maybe_unused]] const bool scaled_dot_product_attention_bound = (sdpa_kernel.cpu = cpu_sdpa, sdpa_backward_kernel.cpu = cpu_sdpa_backward, true);

}  // namespace
}  // namespace hm
