// CUDA fused Fourier (sinc-power) attention (the formulas of ops/cpu/fourier_attention.cpp),
// with the shared HM_HD log_abs_sinc / dlog_abs_sinc of ops/fourier_attention_kernels.h: the
// reference kernels below, and, where they cover the case (fourier_attention_tiled_covers; the op
// then saves lse, not attn), the tiled kernels of cuda/fourier_attention_tiled.cu.
//   forward: one thread per query row (b, h, i): logits p * sum_d log|sinc(R_d (q_id - k_jd))|
//            (-inf where masked), softmax, A v. With attn defined the logits are written there
//            and softmaxed in place; without (recompute) each logit is recomputed per pass
//            (max, sum, output) so only lse (B, H, Nq) is written. Odd p (always with attn):
//            the weights carry the sign prod_d sign(sinc), the signed kernel.
//   backward: pass 1, one thread per query row: A (saved or recomputed from lse), the
//            dropout-scaled weights W = A keep scale and C = p A (dA - rowdot(dA, A)) into
//            (rows, Nk) scratch, dq, and this row's dR terms into (rows, D) partials;
//            pass 2, one thread per key (b, h, j): dk and dv summed over the query rows in
//            order (no atomics); pass 3, one thread per d: dR = sum of the row partials in
//            row order, in double. Deterministic on the device and equal on the host twin.
#include <limits>

#include "harmonic/core/dtype.h"
#include "harmonic/cuda/device/fourier_attention_tiled.cuh"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/dropout_functors.h"
#include "harmonic/ops/fourier_attention_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
struct Geometry {  // sizes and inputs shared by every pass
  const T *q, *k, *v, *R;
  const bool* pad;  // (B, Nk) or null
  int64_t H, Nq, Nk, D, Dv;
  double p;
  bool odd;  // odd p: signed weights
  bool causal;
  bool drop;
  float pf;
  double eps;  // the authors' denominator (fourier_attention_denominator)
  T scale;
  uint64_t seed, offset;
  const int64_t* offset_base;  // null, or a captured draw's device value added to offset

  HM_HD bool blocked(int64_t row, int64_t j) const {
    const int64_t i = row % Nq, b = row / Nq / H;
    return (causal && j > i + (Nk - Nq)) || (pad && pad[b * Nk + j]);
  }
  // The logit of (row, j) as the CPU stores it (in T), -inf where blocked.
  HM_HD T logit(int64_t row, int64_t j) const {
    if (blocked(row, j)) return -std::numeric_limits<T>::infinity();
    const int64_t bh = row / Nq;
    const T *qi = q + row * D, *kj = k + (bh * Nk + j) * D;
    double acc = 0.0;
    for (int64_t d = 0; d < D; ++d) acc += static_cast<double>(log_abs_sinc<T>(R[d] * (qi[d] - kj[d])));
    return static_cast<T>(p * acc);
  }
  // prod_d sign(sinc(R_d (q_id - k_jd))): the sign of the odd-p kernel.
  HM_HD T sign(int64_t row, int64_t j) const {
    const int64_t bh = row / Nq;
    const T *qi = q + row * D, *kj = k + (bh * Nk + j) * D;
    using std::sin;
    T s = T(1);
    for (int64_t d = 0; d < D; ++d) {
      const T x = R[d] * (qi[d] - kj[d]);
      if (x != T(0) && sin(x) / x < T(0)) s = -s;
    }
    return s;
  }
  // keep * scale of the dropout mask at (row, j); scale alone without dropout.
  HM_HD T keep_scale(int64_t row, int64_t j) const {
    if (!drop) return scale;
    return dropout_keep(seed, offset_base ? offset + static_cast<uint64_t>(*offset_base) : offset, static_cast<uint64_t>(row * Nk + j), pf) ? scale : T(0);
  }
};

template <class T>
struct ForwardRow {
  Geometry<T> g;
  T *out, *attn, *lse;  // attn or lse null
  HM_HD void operator()(int64_t row) const {
    const int64_t Nk = g.Nk, Dv = g.Dv, bh = row / g.Nq;
    T* o = out + row * Dv;
    for (int64_t e = 0; e < Dv; ++e) o[e] = T(0);
    T* a = attn ? attn + row * Nk : nullptr;
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < Nk; ++j) {
      const T l = g.logit(row, j);
      if (a) a[j] = l;
      if (static_cast<double>(l) > m) m = l;
    }
    if (m == -std::numeric_limits<double>::infinity()) {  // every key masked: zeros
      if (a)
        for (int64_t j = 0; j < Nk; ++j) a[j] = T(0);
      if (lse) lse[row] = -std::numeric_limits<T>::infinity();
      return;
    }
    double s = 0.0;
    for (int64_t j = 0; j < Nk; ++j) {
      double e = CudaMath::exp(static_cast<double>(a ? a[j] : g.logit(row, j)) - m);
      if (g.odd) e *= static_cast<double>(g.sign(row, j));  // 0 where blocked either way
      if (a) a[j] = static_cast<T>(e);
      s += e;
    }
    s = fourier_attention_denominator(s, m, g.eps);
    const T inv = static_cast<T>(1.0 / s);
    if (lse) lse[row] = static_cast<T>(m + CudaMath::log(s));
    const T* vb = g.v + bh * Nk * Dv;
    for (int64_t j = 0; j < Nk; ++j) {
      T w;
      if (a) {
        a[j] *= inv;
        w = a[j];
      } else {
        w = static_cast<T>(CudaMath::exp(static_cast<double>(g.logit(row, j)) - m)) * inv;
      }
      if (g.drop) w = g.keep_scale(row, j) == T(0) ? T(0) : w * g.scale;
      if (w == T(0)) continue;
      const T* vj = vb + j * Dv;
      for (int64_t e = 0; e < Dv; ++e) o[e] += w * vj[e];
    }
  }
};

template <class T>
struct BackwardRow {  // pass 1
  Geometry<T> g;
  const T *attn, *lse, *grad;  // attn or lse null; grad (rows, Dv)
  T *W, *C, *dq, *dr_part;     // W, C (rows, Nk); dq (rows, D); dr_part (rows, D)
  HM_HD T prob(int64_t row, int64_t j, T l) const {
    if (attn) return attn[row * g.Nk + j];
    if (l == -std::numeric_limits<T>::infinity()) return T(0);
    return CudaMath::exp(g.logit(row, j) - l);  // exp(-inf) = 0 where blocked
  }
  HM_HD void operator()(int64_t row) const {
    const int64_t Nk = g.Nk, Dv = g.Dv, D = g.D, bh = row / g.Nq;
    const T l = lse ? lse[row] : T(0);
    const T* gi = grad + row * Dv;
    const T* vb = g.v + bh * Nk * Dv;
    T *w = W + row * Nk, *c = C + row * Nk;
    double rowdot = 0.0;
    for (int64_t j = 0; j < Nk; ++j) {  // w = A keep scale; c = dA for now
      const T a = prob(row, j, l);
      if (a == T(0)) {
        w[j] = T(0), c[j] = T(0);
        continue;
      }
      const T ks = g.keep_scale(row, j);
      const T* vj = vb + j * Dv;
      T dot = T(0);
      for (int64_t e = 0; e < Dv; ++e) dot += gi[e] * vj[e];
      const T ds = dot * ks;
      w[j] = a * ks;
      c[j] = ds;  // dA_ij for now
      rowdot += static_cast<double>(ds) * a;
    }
    const T* qi = g.q + row * D;
    const T* kb = g.k + bh * Nk * D;
    T *dqi = dq + row * D, *drow = dr_part + row * D;
    for (int64_t d = 0; d < D; ++d) dqi[d] = T(0), drow[d] = T(0);
    const T pt = static_cast<T>(g.p);
    for (int64_t j = 0; j < Nk; ++j) {
      const T a = prob(row, j, l);
      if (a == T(0)) {
        c[j] = T(0);
        continue;
      }
      const T cj = pt * a * static_cast<T>(c[j] - rowdot);  // p dS_ij
      c[j] = cj;
      const T* kj = kb + j * D;
      for (int64_t d = 0; d < D; ++d) {
        const T diff = qi[d] - kj[d];
        const T coef = cj * dlog_abs_sinc<T>(g.R[d] * diff);
        drow[d] += coef * diff;
        dqi[d] += coef * g.R[d];
      }
    }
  }
};

template <class T>
struct BackwardKey {  // pass 2: one thread per (bh, j)
  Geometry<T> g;
  const T *grad, *W, *C;
  T *dk, *dv;
  HM_HD void operator()(int64_t kr) const {
    const int64_t Nk = g.Nk, Nq = g.Nq, D = g.D, Dv = g.Dv, bh = kr / Nk, j = kr % Nk;
    T *dkj = dk + kr * D, *dvj = dv + kr * Dv;
    const T* kj = g.k + kr * D;
    for (int64_t d = 0; d < D; ++d) dkj[d] = T(0);
    for (int64_t e = 0; e < Dv; ++e) dvj[e] = T(0);
    for (int64_t i = 0; i < Nq; ++i) {
      const int64_t row = bh * Nq + i;
      const T w = W[row * Nk + j], c = C[row * Nk + j];
      if (w != T(0)) {
        const T* gi = grad + row * Dv;
        for (int64_t e = 0; e < Dv; ++e) dvj[e] += w * gi[e];
      }
      if (c != T(0)) {
        const T* qi = g.q + row * D;
        for (int64_t d = 0; d < D; ++d) dkj[d] -= c * dlog_abs_sinc<T>(g.R[d] * (qi[d] - kj[d])) * g.R[d];
      }
    }
  }
};

template <class T>
struct SumRowsToR {  // pass 3: one thread per d
  const T* part;     // (rows, D)
  T* dR;
  int64_t rows, D;
  HM_HD void operator()(int64_t d) const {
    double s = 0.0;
    for (int64_t r = 0; r < rows; ++r) s += static_cast<double>(part[r * D + d]);
    dR[d] = static_cast<T>(s);
  }
};

template <class T>
Geometry<T> geometry(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                     const FourierAttentionArgs& args) {
  Geometry<T> g;
  g.q = static_cast<const T*>(q.raw_data()), g.k = static_cast<const T*>(k.raw_data());
  g.v = static_cast<const T*>(v.raw_data()), g.R = static_cast<const T*>(R.raw_data());
  g.pad = pad.defined() ? static_cast<const bool*>(pad.raw_data()) : nullptr;
  g.H = q.size(1), g.Nq = q.size(2), g.D = q.size(3), g.Nk = k.size(2), g.Dv = v.size(3);
  g.p = static_cast<double>(args.p);
  g.odd = args.p % 2 != 0;
  g.causal = args.causal;
  g.drop = args.dropout_p > 0.0;
  g.pf = static_cast<float>(args.dropout_p);
  g.eps = args.eps;
  g.scale = g.drop ? static_cast<T>(1.0 / (1.0 - args.dropout_p)) : T(1);
  g.seed = args.seed, g.offset = args.offset, g.offset_base = args.offset_base;
  return g;
}

template <class T>
T* mut_or_null(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

template <Exec E>
void forward_on(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                const FourierAttentionArgs& args, const Tensor& out, const Tensor& attn, const Tensor& lse) {
  const int device = kernel_device(E, "fourier_attention", {&q, &k, &v, &R, &out});
  if (!attn.defined() && fourier_tiled_forward<E>(q, k, v, R, pad, args, out, lse)) return;
  dispatch_float(q.dtype(), "fourier_attention", [&]<class T>() {
    const Geometry<T> g = geometry<T>(q, k, v, R, pad, args);
    for_each_index(E, device, q.size(0) * g.H * g.Nq,
                   ForwardRow<T>{g, static_cast<T*>(out.raw_data()), mut_or_null<T>(attn), mut_or_null<T>(lse)});
  });
}

template <Exec E>
void backward_on(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& attn,
                 const Tensor& pad, const Tensor& lse, const Tensor& out, const Tensor& grad,
                 const FourierAttentionArgs& args, const Tensor& dq, const Tensor& dk, const Tensor& dv,
                 const Tensor& dR) {
  const int device = kernel_device(E, "fourier_attention_backward", {&q, &k, &v, &R, &grad, &dq, &dk, &dv, &dR});
  if (!attn.defined() && fourier_tiled_backward<E>(q, k, v, R, pad, out, lse, grad, args, dq, dk, dv, dR)) return;
  dispatch_float(q.dtype(), "fourier_attention_backward", [&]<class T>() {
    const Geometry<T> g = geometry<T>(q, k, v, R, pad, args);
    const int64_t rows = q.size(0) * g.H * g.Nq, keys = q.size(0) * g.H * g.Nk;
    Tensor W = Tensor::empty(Shape{rows, g.Nk}, q.dtype(), q.device());
    Tensor C = Tensor::empty(Shape{rows, g.Nk}, q.dtype(), q.device());
    Tensor part = Tensor::empty(Shape{rows, g.D}, q.dtype(), q.device());
    T *pw = static_cast<T*>(W.raw_data()), *pc = static_cast<T*>(C.raw_data());
    T* pp = static_cast<T*>(part.raw_data());
    const T* pg = static_cast<const T*>(grad.raw_data());
    const T* pa = attn.defined() ? static_cast<const T*>(attn.raw_data()) : nullptr;
    const T* pl = pa ? nullptr : static_cast<const T*>(lse.raw_data());
    for_each_index(E, device, rows, BackwardRow<T>{g, pa, pl, pg, pw, pc, static_cast<T*>(dq.raw_data()), pp});
    for_each_index(E, device, keys,
                   BackwardKey<T>{g, pg, pw, pc, static_cast<T*>(dk.raw_data()), static_cast<T*>(dv.raw_data())});
    for_each_index(E, device, g.D, SumRowsToR<T>{pp, static_cast<T*>(dR.raw_data()), rows, g.D});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(fourier_attention_kernel, forward_on<Exec::Device>, forward_on<Exec::Host>) &&
    bind_cuda(fourier_attention_backward_kernel, backward_on<Exec::Device>, backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
