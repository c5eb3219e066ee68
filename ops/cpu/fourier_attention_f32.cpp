// The float32 CPU kernels of the fused Fourier attention (the float64 ones, the reference, are
// in ops/cpu/fourier_attention.cpp). Same contract and same results up to float rounding;
// the math of the per-dimension terms is in ops/cpu/sinc_math.h.
//   logits: per query row, keys in tiles of kTile (one or two SIMD registers); per dimension
//           each |sinc| comes as a quotient num / den of normal floats whose mantissas are
//           multiplied and exponents added in registers (no underflow: |sinc| >= the floor
//           only bounds one factor), so a row of D <= 64 dimensions costs one log, not D.
//           x = R_d q_id - R_d k_jd from the slice's pre-scaled keys, transposed (D, Nk).
//   forward: softmax with vm::exp, dropout masks from ops/cpu/dropout_mask.h, A v.
//   backward: one task per (b, h). Per row, dA = z (g V^T), c_j = p A_ij (dA_ij - sum A dA);
//           each (i, j, d) term c_j (cot x - 1/x) is computed once and summed into the row sum
//           S_id (dq_id = R_d S_id) and the column sum T_jd (dk_jd = -R_d T_jd); dR_d =
//           sum_i q_id S_id - sum_j k_jd T_jd, taken about the keys' mean (exact, less rounding).
#include "harmonic/ops/cpu/fourier_attention_f32.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/dropout_mask.h"
#include "harmonic/ops/cpu/sinc_math.h"
#include "harmonic/ops/fourier_attention_kernels.h"

namespace hm::detail {
namespace {

constexpr int64_t kTile = 16;      // keys per register tile
constexpr int64_t kDimBlock = 64;  // dimensions per log: a product of 64 mantissas < 2^64
constexpr float kFloor = static_cast<float>(kFourierSincFloor);
constexpr float kInf = std::numeric_limits<float>::infinity();

int64_t round_up(int64_t n) { return (n + kTile - 1) / kTile * kTile; }

// One past the last key query i may see.
int64_t key_end(bool causal, int64_t i, int64_t shift, int64_t Nk) {
  return causal ? std::clamp<int64_t>(i + shift + 1, 0, Nk) : Nk;
}

// The keys and values of one (b, h) slice, the keys scaled by R, both transposed so loops run
// over keys: krt (D, Nkp) = R_d k_jd, vt (Dv, Nkp) = v_je, zero past Nk (Nkp = Nk rounded up
// to the tile).
struct ScaledKeys {
  int64_t D, Nk, Dv, Nkp;
  std::vector<float> krt, vt;
  int64_t bh = -1;
  bool finite = true;  // every R_d k_jd finite (else the logits are NaN, as in float64)

  ScaledKeys(int64_t D, int64_t Nk, int64_t Dv)
      : D(D), Nk(Nk), Dv(Dv), Nkp(round_up(Nk)), krt(D * Nkp, 0.0f), vt(Dv * Nkp, 0.0f) {}

  void load(int64_t slice, const float* kb /*(Nk, D)*/, const float* R /*(D)*/, const float* vb /*(Nk, Dv)*/) {
    if (bh == slice) return;
    for (int64_t j = 0; j < Nk; ++j)
      for (int64_t d = 0; d < D; ++d) krt[d * Nkp + j] = R[d] * kb[j * D + d];
    finite = std::all_of(krt.begin(), krt.end(), [](float x) { return std::isfinite(x); });
    for (int64_t j = 0; j < Nk; ++j)
      for (int64_t e = 0; e < Dv; ++e) vt[e * Nkp + j] = vb[j * Dv + e];
    bh = slice;
  }
};

// l (>= round_up(jend)) = p sum_d log|sinc(qr_d - krt_dj)| for j < round_up(jend) (the keys
// past jend are garbage for the caller to overwrite). With sg (odd p), also sg_j = prod_d
// sign(sinc) as +-1. pn, pd (Nkp) float and ex (Nkp) int32 are scratch: the running mantissa
// products of the quotients and their exponent sum.
void row_logits(const float* qr /*(D)*/, const ScaledKeys& keys, int64_t jend, float p, float* l, float* sg, float* pn,
                float* pd, int32_t* ex) {
  const int64_t D = keys.D, Nkp = keys.Nkp, jpad = round_up(jend);
  std::fill(l, l + jpad, 0.0f);
  for (int64_t d0 = 0; d0 < D; d0 += kDimBlock) {
    std::fill(pn, pn + jpad, 1.0f);
    std::fill(pd, pd + jpad, 1.0f);
    std::fill(ex, ex + jpad, 0);
    for (int64_t d = d0; d < std::min(D, d0 + kDimBlock); ++d) {
      const float qd = qr[d], *kd = keys.krt.data() + d * Nkp;
#pragma omp simd
      for (int64_t j = 0; j < jpad; ++j) {
        float num, den;
        vm::abs_sinc_quotient(qd - kd[j], kFloor, num, den);
        int32_t en, ed;
        pn[j] *= vm::split_mantissa(num, en);
        pd[j] *= vm::split_mantissa(den, ed);
        ex[j] += en - ed;
      }
    }
#pragma omp simd
    for (int64_t j = 0; j < jpad; ++j) l[j] += p * (vm::log(pn[j] / pd[j]) + static_cast<float>(ex[j]) * 0.693147181f);
  }
  if (sg) {  // sinc x < 0 iff sin x and x differ in sign; sin x = (-1)^n sin r
    std::fill(ex, ex + jpad, 0);
    for (int64_t d = 0; d < D; ++d) {
      const float qd = qr[d], *kd = keys.krt.data() + d * Nkp;
#pragma omp simd
      for (int64_t j = 0; j < jpad; ++j) {
        const float x = qd - kd[j];
        const vm::PiReduced pr = vm::reduce_pi(x);
        const bool sin_neg = ((pr.k & 1) != 0) != (pr.r < 0.0f);
        ex[j] ^= (pr.n != 0.0f && pr.r != 0.0f && sin_neg != (x < 0.0f)) ? 1 : 0;
      }
    }
    for (int64_t j = 0; j < jpad; ++j) sg[j] = ex[j] ? -1.0f : 1.0f;
  }
}

// Scratch of the row logits.
struct RowScratch {
  std::vector<float> qr, pn, pd;
  std::vector<int32_t> ex;
  RowScratch(int64_t D, int64_t Nkp) : qr(D), pn(Nkp), pd(Nkp), ex(Nkp) {}
};

// The logits of query row i into a (Nkp), -inf where blocked (and past jend); returns the max.
float masked_row_logits(const float* qi, const float* R, const ScaledKeys& keys, const bool* pad_row, int64_t jend,
                        float p, RowScratch& w, float* a, float* sg) {
  for (int64_t d = 0; d < keys.D; ++d) w.qr[d] = R[d] * qi[d];
  row_logits(w.qr.data(), keys, jend, p, a, sg, w.pn.data(), w.pd.data(), w.ex.data());
  // The mantissa/exponent split turns inf and NaN into finite garbage: propagate NaN instead.
  const bool finite = keys.finite && std::all_of(w.qr.begin(), w.qr.end(), [](float x) { return std::isfinite(x); });
  std::fill(a + jend, a + keys.Nkp, -kInf);
  if (pad_row)
    for (int64_t j = 0; j < jend; ++j)
      if (pad_row[j]) a[j] = -kInf;
  float m = -kInf;
  for (int64_t j = 0; j < jend; ++j) m = std::max(m, a[j]);
  if (!finite) std::fill(a, a + jend, m = std::numeric_limits<float>::quiet_NaN());
  return m;
}

}  // namespace

void fourier_attention_f32(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                           const FourierAttentionArgs& args, const Tensor& out, const Tensor& attn, const Tensor& lse) {
  const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), D = q.size(3), Nk = k.size(2), Dv = v.size(3);
  const float *pq = q.data<float>(), *pk = k.data<float>(), *pv = v.data<float>(), *pr = R.data<float>();
  const bool* ppad = pad.defined() ? pad.data<bool>() : nullptr;
  float *po = out.data<float>(), *pa = attn.defined() ? attn.data<float>() : nullptr;
  float* plse = lse.defined() ? lse.data<float>() : nullptr;
  const float p = static_cast<float>(args.p);
  const bool drop = args.dropout_p > 0.0, odd = args.p % 2 != 0;
  const float pf = static_cast<float>(args.dropout_p);
  const float scale = drop ? static_cast<float>(1.0 / (1.0 - args.dropout_p)) : 1.0f;
  const int64_t shift = Nk - Nq;
  parallel_for(B * H * Nq, Nk * D * 16, [&](int64_t r0, int64_t r1) {
    ScaledKeys keys(D, Nk, Dv);
    RowScratch scratch(D, keys.Nkp);
    std::vector<float> row(keys.Nkp), sg(odd ? keys.Nkp : 0), z(Nk);
    for (int64_t rw = r0; rw < r1; ++rw) {
      const int64_t bh = rw / Nq, i = rw % Nq, b = bh / H, jend = key_end(args.causal, i, shift, Nk);
      keys.load(bh, pk + bh * Nk * D, pr, pv + bh * Nk * Dv);
      float* o = po + rw * Dv;  // (Dv)
      float* a = row.data();
      const float m = masked_row_logits(pq + rw * D, pr, keys, ppad ? ppad + b * Nk : nullptr, jend, p, scratch, a,
                                        odd ? sg.data() : nullptr);
      float* arow = pa ? pa + rw * Nk : nullptr;  // (Nk)
      if (m == -kInf) {                           // every key masked: zeros
        std::fill(o, o + Dv, 0.0f);
        if (arow) std::fill(arow, arow + Nk, 0.0f);
        if (plse) plse[rw] = -kInf;
        continue;
      }
#pragma omp simd
      for (int64_t j = 0; j < jend; ++j) a[j] = vm::exp(a[j] - m);  // exp(-inf) = 0
      if (odd)                                                      // the signed kernel; s may approach 0
        for (int64_t j = 0; j < jend; ++j) a[j] *= sg[j];
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < jend; ++j) s += a[j];
      s = fourier_attention_denominator(s, static_cast<double>(m), args.eps);
      const float inv = static_cast<float>(1.0 / s);
#pragma omp simd
      for (int64_t j = 0; j < jend; ++j) a[j] *= inv;
      if (plse) plse[rw] = m + static_cast<float>(std::log(s));
      if (arow) {
        std::copy(a, a + jend, arow);
        std::fill(arow + jend, arow + Nk, 0.0f);
      }
      if (drop) {
        dropout_factors(args.seed, args.offset, static_cast<uint64_t>(rw * Nk), jend, pf, scale, z.data());
#pragma omp simd
        for (int64_t j = 0; j < jend; ++j) a[j] *= z[j];
      }
      for (int64_t e = 0; e < Dv; ++e) {  // o_e = sum_j w_j v_je
        const float* ve = keys.vt.data() + e * keys.Nkp;
        float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
        for (int64_t j = 0; j < jend; ++j) acc += a[j] * ve[j];
        o[e] = acc;
      }
    }
  });
}

void fourier_attention_backward_f32(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R,
                                    const Tensor& attn, const Tensor& pad, const Tensor& lse, const Tensor& g,
                                    const FourierAttentionArgs& args, const Tensor& dq, const Tensor& dk,
                                    const Tensor& dv, const Tensor& dR) {
  const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), D = q.size(3), Nk = k.size(2), Dv = v.size(3);
  const float *pq = q.data<float>(), *pk = k.data<float>(), *pv = v.data<float>(), *pr = R.data<float>();
  const float *pa = attn.defined() ? attn.data<float>() : nullptr, *pg = g.data<float>();
  const float* plse = lse.defined() ? lse.data<float>() : nullptr;  // recompute: A from the logits and lse
  const bool* ppad = pad.defined() ? pad.data<bool>() : nullptr;
  float *pdq = dq.data<float>(), *pdk = dk.data<float>(), *pdv = dv.data<float>();
  const float p = static_cast<float>(args.p);
  const bool drop = args.dropout_p > 0.0;
  const float pf = static_cast<float>(args.dropout_p);
  const float scale = drop ? static_cast<float>(1.0 / (1.0 - args.dropout_p)) : 1.0f;
  const int64_t shift = Nk - Nq;
  std::vector<double> dr_part(B * H * D, 0.0);  // per (b, h), summed at the end
  parallel_for(B * H, Nq * Nk * (D + Dv) * 16, [&](int64_t t0, int64_t t1) {
    ScaledKeys keys(D, Nk, Dv);
    const int64_t Nkp = keys.Nkp;
    RowScratch scratch(D, Nkp);
    std::vector<float> row(Nkp), z(Nkp), da(Nkp), c(Nkp), colsum(D * Nkp), rowsum(Nq * D);
    for (int64_t bh = t0; bh < t1; ++bh) {
      const float* qb = pq + bh * Nq * D;   // (Nq, D)
      const float* kb = pk + bh * Nk * D;   // (Nk, D)
      const float* vb = pv + bh * Nk * Dv;  // (Nk, Dv)
      const float* gb = pg + bh * Nq * Dv;  // (Nq, Dv)
      const bool* pad_row = ppad ? ppad + (bh / H) * Nk : nullptr;
      float* dqb = pdq + bh * Nq * D;
      float* dvb = pdv + bh * Nk * Dv;
      keys.load(bh, kb, pr, vb);
      std::fill(colsum.begin(), colsum.end(), 0.0f);
      std::fill(rowsum.begin(), rowsum.end(), 0.0f);
      std::fill(dvb, dvb + Nk * Dv, 0.0f);
      std::fill(z.begin(), z.end(), scale);
      for (int64_t i = 0; i < Nq; ++i) {
        const int64_t jend = key_end(args.causal, i, shift, Nk), jpad = round_up(jend);
        float* a = row.data();
        if (pa) {
          std::copy(pa + (bh * Nq + i) * Nk, pa + (bh * Nq + i) * Nk + jend, a);
        } else {  // A_ij = exp(logit_ij - lse_i); 0 where blocked and in fully masked rows
          const float l = plse[bh * Nq + i];
          if (l == -kInf) continue;
          masked_row_logits(qb + i * D, pr, keys, pad_row, jend, p, scratch, a, nullptr);
#pragma omp simd
          for (int64_t j = 0; j < jend; ++j) a[j] = vm::exp(a[j] - l);
        }
        std::fill(a + jend, a + jpad, 0.0f);
        if (drop)
          dropout_factors(args.seed, args.offset, static_cast<uint64_t>((bh * Nq + i) * Nk), jend, pf, scale, z.data());
        // dA_ij = z_ij g_i . v_j; dV_j += A_ij z_ij g_i; c_j = p A_ij (dA_ij - sum_j A_ij dA_ij).
        const float* gi = gb + i * Dv;
        std::fill(da.begin(), da.begin() + jend, 0.0f);
        for (int64_t e = 0; e < Dv; ++e) {
          const float ge = gi[e], *ve = keys.vt.data() + e * Nkp;
#pragma omp simd
          for (int64_t j = 0; j < jend; ++j) da[j] += ge * ve[j];
        }
        double rowdot = 0.0;
#pragma omp simd reduction(+ : rowdot)
        for (int64_t j = 0; j < jend; ++j) {
          da[j] *= z[j];
          rowdot += static_cast<double>(da[j]) * a[j];
        }
        for (int64_t j = 0; j < jend; ++j) {
          const float w = a[j] * z[j];
          if (w == 0.0f) continue;
          float* dvj = dvb + j * Dv;
#pragma omp simd
          for (int64_t e = 0; e < Dv; ++e) dvj[e] += w * gi[e];
        }
        const float rd = static_cast<float>(rowdot);
#pragma omp simd
        for (int64_t j = 0; j < jend; ++j) c[j] = p * a[j] * (da[j] - rd);
        std::fill(c.begin() + jend, c.begin() + jpad, 0.0f);
        // Each (i, j, d) term once: S_id += c_j dlog(x), T_jd += c_j dlog(x).
        const float* qi = qb + i * D;
        float* si = rowsum.data() + i * D;
        for (int64_t d = 0; d < D; ++d) {
          const float qd = pr[d] * qi[d], *kd = keys.krt.data() + d * Nkp;
          float* td = colsum.data() + d * Nkp;
          float s = 0.0f;
#pragma omp simd reduction(+ : s)
          for (int64_t j = 0; j < jpad; ++j) {
            const float cd = c[j] * vm::dlog_abs_sinc(qd - kd[j], kFloor);
            td[j] += cd;
            s += cd;
          }
          si[d] = s;
        }
      }
      // dq = R S, dk = -R T, dR = sum_i (q_i - mu) S_i - sum_j (k_j - mu) T_j with mu the keys' mean.
      for (int64_t i = 0; i < Nq; ++i)
        for (int64_t d = 0; d < D; ++d) dqb[i * D + d] = pr[d] * rowsum[i * D + d];
      float* dkb = pdk + bh * Nk * D;
      for (int64_t j = 0; j < Nk; ++j)
        for (int64_t d = 0; d < D; ++d) dkb[j * D + d] = -pr[d] * colsum[d * Nkp + j];
      for (int64_t d = 0; d < D; ++d) {
        double mu = 0.0;
        for (int64_t j = 0; j < Nk; ++j) mu += kb[j * D + d];
        mu = Nk > 0 ? mu / static_cast<double>(Nk) : 0.0;
        double acc = 0.0;
        for (int64_t i = 0; i < Nq; ++i) acc += (qb[i * D + d] - mu) * rowsum[i * D + d];
        for (int64_t j = 0; j < Nk; ++j) acc -= (kb[j * D + d] - mu) * colsum[d * Nkp + j];
        dr_part[bh * D + d] = acc;
      }
    }
  });
  float* pdr = dR.data<float>();
  for (int64_t d = 0; d < D; ++d) {
    double s = 0.0;
    for (int64_t bh = 0; bh < B * H; ++bh) s += dr_part[bh * D + d];
    pdr[d] = static_cast<float>(s);
  }
}

}  // namespace hm::detail
