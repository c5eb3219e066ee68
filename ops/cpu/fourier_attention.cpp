// CPU fused Fourier attention, the float64 path (the exact reference; float32 tensors go to the
// vectorised kernels of ops/cpu/fourier_attention_f32.cpp). Forward: one task per query row builds the (Nk) logits as
// p * log(prod_d |sinc|) (the product in double, folded into a log every 8 dims so it cannot
// underflow: each factor is >= kFourierSincFloor), softmaxes them in place in attn and
// multiplies by v; for odd p the weights carry the sign prod_d sign(sinc) (the paper's signed
// kernel, normalised by its signed sum). Under a causal mask the keys past the diagonal are
// never computed. Backward: one task per (b, h) owns its dk/dv slices (no races) and a
// private dR partial; the per-dimension terms are recomputed, never stored.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/fourier_attention_f32.h"
#include "harmonic/ops/fourier_attention_kernels.h"
#include "harmonic/ops/dropout_functors.h"

namespace hm {
namespace {

// |sinc x| clamped to the floor; 1 - x^2/6 + x^4/120 near 0 (no 0/0).
template <class T>
inline double abs_sinc(T xt) {
  const double x = xt;
  if (std::fabs(x) < 1e-3) {
    const double x2 = x * x;
    return 1.0 - x2 * (1.0 / 6.0 - x2 * (1.0 / 120.0));
  }
  const double s = std::fabs(static_cast<double>(std::sin(xt)) / x);
  return s > kFourierSincFloor ? s : kFourierSincFloor;
}

// One past the last key query i may see.
inline int64_t key_end(bool causal, int64_t i, int64_t shift, int64_t Nk) {
  return causal ? std::clamp<int64_t>(i + shift + 1, 0, Nk) : Nk;
}

// True when key j is hidden from query i.
inline bool blocked(const bool* pad_row, bool causal, int64_t i, int64_t j, int64_t shift) {
  return (causal && j > i + shift) || (pad_row && pad_row[j]);
}

// Logits of one query row, p * sum_d log|sinc(R_d (q_id - k_jd))| (-inf where blocked), for
// the forward and for the recomputing backward.
template <class T>
struct RowLogits {
  int64_t D, Nk, shift;
  const T* pr;
  double p;
  bool causal;
  std::vector<T> xr;

  RowLogits(int64_t D, int64_t Nk, int64_t shift, const T* pr, double p, bool causal)
      : D(D), Nk(Nk), shift(shift), pr(pr), p(p), causal(causal), xr(D) {}

  // qi (D), kb (Nk, D); writes a (Nk) and returns its max (-inf: all blocked).
  // With sg (odd p), also sg (Nk) = prod_d sign(sinc(R_d (q_id - k_jd))) (1 where blocked).
  double operator()(const T* qi, const T* kb, const bool* pad_row, int64_t i, T* a, T* sg = nullptr) {
    const int64_t jend = key_end(causal, i, shift, Nk);
    if (sg) {
      for (int64_t j = 0; j < Nk; ++j) {
        T sign = T(1);
        const T* kj = kb + j * D;
        for (int64_t d = 0; j < jend && d < D; ++d) {
          const T x = pr[d] * (qi[d] - kj[d]);
          if (x != T(0) && std::sin(x) / x < T(0)) sign = -sign;
        }
        sg[j] = sign;
      }
    }
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = jend; j < Nk; ++j) a[j] = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < jend; ++j) {
      if (blocked(pad_row, causal, i, j, shift)) {
        a[j] = -std::numeric_limits<T>::infinity();
        continue;
      }
      const T* kj = kb + j * D;
      for (int64_t d = 0; d < D; ++d) xr[d] = pr[d] * (qi[d] - kj[d]);
      double acc = 0.0, prod = 1.0;
      for (int64_t d = 0; d < D; ++d) {
        prod *= abs_sinc(xr[d]);
        if ((d & 7) == 7) acc += std::log(prod), prod = 1.0;
      }
      acc += std::log(prod);
      a[j] = static_cast<T>(p * acc);
      m = std::max(m, static_cast<double>(a[j]));
    }
    return m;
  }
};

void cpu_fourier_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                           const FourierAttentionArgs& args, const Tensor& out, const Tensor& attn, const Tensor& lse) {
  if (q.dtype() == DType::Float32) return detail::fourier_attention_f32(q, k, v, R, pad, args, out, attn, lse);
  dispatch_float(q.dtype(), "fourier_attention", [&]<class T>() {
    const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), D = q.size(3), Nk = k.size(2), Dv = v.size(3);
    const T *pq = q.data<T>(), *pk = k.data<T>(), *pv = v.data<T>(), *pr = R.data<T>();
    const bool* ppad = pad.defined() ? pad.data<bool>() : nullptr;
    T *po = out.data<T>(), *pa = attn.defined() ? attn.data<T>() : nullptr;
    T* plse = lse.defined() ? lse.data<T>() : nullptr;
    const double p = static_cast<double>(args.p);
    const bool drop = args.dropout_p > 0.0;
    const float pf = static_cast<float>(args.dropout_p);
    const T scale = drop ? static_cast<T>(1.0 / (1.0 - args.dropout_p)) : T(1);
    const int64_t shift = Nk - Nq;
    const bool odd = args.p % 2 != 0;  // signed weights (recompute is never set for odd p)
    parallel_for(B * H * Nq, Nk * D * 8, [&](int64_t r0, int64_t r1) {
      RowLogits<T> logits(D, Nk, shift, pr, p, args.causal);
      std::vector<T> abuf(pa ? 0 : Nk), sg(odd ? Nk : 0);  // recompute: A is not kept
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t bh = row / Nq, i = row % Nq, b = bh / H, jend = key_end(args.causal, i, shift, Nk);
        const T* vb = pv + bh * Nk * Dv;          // (Nk, Dv)
        T* a = pa ? pa + row * Nk : abuf.data();  // (Nk): logits, then probabilities
        const double m =
            logits(pq + row * D, pk + bh * Nk * D, ppad ? ppad + b * Nk : nullptr, i, a, odd ? sg.data() : nullptr);
        T* o = po + row * Dv;  // (Dv)
        std::fill(o, o + Dv, T(0));
        if (m == -std::numeric_limits<double>::infinity()) {  // every key masked: zeros
          std::fill(a, a + Nk, T(0));
          if (plse) plse[row] = -std::numeric_limits<T>::infinity();
          continue;
        }
        double s = 0.0;
        for (int64_t j = 0; j < jend; ++j) {
          double e = std::exp(static_cast<double>(a[j]) - m);  // exp(-inf) = 0
          if (odd) e *= static_cast<double>(sg[j]);            // the signed kernel; s may approach 0
          a[j] = static_cast<T>(e);
          s += e;
        }
        std::fill(a + jend, a + Nk, T(0));
        s = fourier_attention_denominator(s, m, args.eps);
        const T inv = static_cast<T>(1.0 / s);
        if (plse) plse[row] = static_cast<T>(m + std::log(s));
        for (int64_t j = 0; j < jend; ++j) {
          a[j] *= inv;
          T w = a[j];
          if (drop)
            w = dropout_keep(args.seed, args.offset, static_cast<uint64_t>(row * Nk + j), pf) ? w * scale : T(0);
          if (w == T(0)) continue;
          const T* vj = vb + j * Dv;
#pragma omp simd
          for (int64_t e = 0; e < Dv; ++e) o[e] += w * vj[e];
        }
      }
    });
  });
}

void cpu_fourier_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R,
                                    const Tensor& attn, const Tensor& pad, const Tensor& lse, const Tensor& /*out*/,
                                    const Tensor& g, const FourierAttentionArgs& args, const Tensor& dq,
                                    const Tensor& dk, const Tensor& dv, const Tensor& dR) {
  if (q.dtype() == DType::Float32)
    return detail::fourier_attention_backward_f32(q, k, v, R, attn, pad, lse, g, args, dq, dk, dv, dR);
  dispatch_float(q.dtype(), "fourier_attention_backward", [&]<class T>() {
    const int64_t B = q.size(0), H = q.size(1), Nq = q.size(2), D = q.size(3), Nk = k.size(2), Dv = v.size(3);
    const T *pq = q.data<T>(), *pk = k.data<T>(), *pv = v.data<T>(), *pr = R.data<T>();
    const T *pa = attn.defined() ? attn.data<T>() : nullptr, *pg = g.data<T>();
    const T* plse = lse.defined() ? lse.data<T>() : nullptr;  // recompute: A from the logits and lse
    const bool* ppad = pad.defined() ? pad.data<bool>() : nullptr;
    T *pdq = dq.data<T>(), *pdk = dk.data<T>(), *pdv = dv.data<T>();
    const T p = static_cast<T>(args.p);
    const bool drop = args.dropout_p > 0.0;
    const float pf = static_cast<float>(args.dropout_p);
    const T scale = drop ? static_cast<T>(1.0 / (1.0 - args.dropout_p)) : T(1);
    std::vector<double> dr_part(B * H * D, 0.0);  // per (b, h), summed at the end
    parallel_for(B * H, Nq * Nk * (D + Dv) * 8, [&](int64_t t0, int64_t t1) {
      std::vector<T> ds(Nk), coef(D), drow(D), abuf(pa ? 0 : Nk);
      RowLogits<T> logits(D, Nk, Nk - Nq, pr, static_cast<double>(args.p), args.causal);
      std::vector<double> drl(D);
      for (int64_t bh = t0; bh < t1; ++bh) {
        const T* qb = pq + bh * Nq * D;                  // (Nq, D)
        const T* kb = pk + bh * Nk * D;                  // (Nk, D)
        const T* vb = pv + bh * Nk * Dv;                 // (Nk, Dv)
        const T* ab = pa ? pa + bh * Nq * Nk : nullptr;  // (Nq, Nk)
        const T* gb = pg + bh * Nq * Dv;                 // (Nq, Dv)
        T* dqb = pdq + bh * Nq * D;
        T* dkb = pdk + bh * Nk * D;
        T* dvb = pdv + bh * Nk * Dv;
        std::fill(dqb, dqb + Nq * D, T(0));
        std::fill(dkb, dkb + Nk * D, T(0));
        std::fill(dvb, dvb + Nk * Dv, T(0));
        std::fill(drl.begin(), drl.end(), 0.0);
        for (int64_t i = 0; i < Nq; ++i) {
          const int64_t jend = key_end(args.causal, i, Nk - Nq, Nk);  // A_ij = 0 past it
          const T* a = ab ? ab + i * Nk : abuf.data();
          if (!ab) {  // A_ij = exp(logit_ij - lse_i); 0 where blocked and in fully masked rows
            const T l = plse[bh * Nq + i];
            if (l == -std::numeric_limits<T>::infinity()) {
              std::fill(abuf.begin(), abuf.end(), T(0));
            } else {
              logits(qb + i * D, kb, ppad ? ppad + (bh / H) * Nk : nullptr, i, abuf.data());
              for (int64_t j = 0; j < jend; ++j) abuf[j] = std::exp(abuf[j] - l);
            }
          }
          const T* gi = gb + i * Dv;
          // dA_ij = keep * scale * g_i . v_j, dV_j += A_drop_ij g_i, then dS = A (dA - sum(dA A)).
          double rowdot = 0.0;
          for (int64_t j = 0; j < jend; ++j) {
            if (a[j] == T(0)) {
              ds[j] = T(0);
              continue;
            }
            T ks = scale;
            if (drop && !dropout_keep(args.seed, args.offset, static_cast<uint64_t>((bh * Nq + i) * Nk + j), pf))
              ks = T(0);
            const T* vj = vb + j * Dv;
            T* dvj = dvb + j * Dv;
            const T w = a[j] * ks;
            T dot = T(0);
#pragma omp simd reduction(+ : dot)
            for (int64_t e = 0; e < Dv; ++e) {
              dot += gi[e] * vj[e];
              dvj[e] += w * gi[e];
            }
            ds[j] = dot * ks;  // dA_ij for now
            rowdot += static_cast<double>(ds[j]) * a[j];
          }
          const T* qi = qb + i * D;
          T* dqi = dqb + i * D;
          std::fill(drow.begin(), drow.end(), T(0));  // this row's dR terms
          for (int64_t j = 0; j < jend; ++j) {
            if (a[j] == T(0)) continue;
            const T c = p * a[j] * static_cast<T>(ds[j] - rowdot);  // p dS_ij
            const T* kj = kb + j * D;
            T* dkj = dkb + j * D;
            for (int64_t d = 0; d < D; ++d) {
              const T diff = qi[d] - kj[d];
              coef[d] = c * dlog_abs_sinc<T>(pr[d] * diff);
              drow[d] += coef[d] * diff;
            }
#pragma omp simd
            for (int64_t d = 0; d < D; ++d) {
              const T t = coef[d] * pr[d];
              dqi[d] += t;
              dkj[d] -= t;
            }
          }
          for (int64_t d = 0; d < D; ++d) drl[d] += static_cast<double>(drow[d]);
        }
        std::copy(drl.begin(), drl.end(), dr_part.begin() + bh * D);
      }
    });
    T* pdr = dR.data<T>();
    for (int64_t d = 0; d < D; ++d) {
      double s = 0.0;
      for (int64_t bh = 0; bh < B * H; ++bh) s += dr_part[bh * D + d];
      pdr[d] = static_cast<T>(s);
    }
  });
}

[[maybe_unused]] const bool fourier_attention_bound = (fourier_attention_kernel.cpu = cpu_fourier_attention,
                                     fourier_attention_backward_kernel.cpu = cpu_fourier_attention_backward, true);

}  // namespace
}  // namespace hm
