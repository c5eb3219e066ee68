// CUDA fused scaled dot-product attention (the formulas of ops/cpu/scaled_dot_product_attention.cpp):
//   logits:  s_ij = scale q_i . k_j + bias[(b or 0, h or 0, i, j)] when there is an additive
//            bias (Bb, Hb, Nq, Nk), before the pad/causal masks; a key whose biased logit is
//            -inf counts as masked (a row of them behaves as a fully masked row).
//   forward: one thread per query row (b, h, i), one pass over the visible keys with an
//            online softmax (running max m and sum l in double, the output rescaled when m
//            grows); writes out and lse = m + log l (-inf: every key masked).
//   backward: pass 1, one thread per query row: delta_i = dO_i . O_i (into scratch) and
//            dq_i = sum_j dS_ij k_j; pass 2, one thread per key (b, h, j): dv_j = sum_i
//            P_ij keep scale dO_i and dk_j = sum_i dS_ij q_i, summed over the query rows in
//            order (no atomics), P recomputed from lse (bias included). dS = P (dP keep -
//            delta) scale. Pass 3, only for a bias gradient: one thread per bias element
//            (bb, hb, i, j), dbias = dS / scale recomputed for each (b, h) the element covers
//            (every b when Bb = 1, every h when Hb = 1; b outer, h inner) and summed in that
//            fixed order (no atomics).
// A simple reference-grade kernel (no shared-memory tiling); deterministic, and equal on the
// host twin. The slots run the tiled kernels instead (cuda/scaled_dot_product_attention_flash.cu)
// where cuda/scaled_dot_product_attention_route.h says; these stay their reference.
#include <limits>

#include "harmonic/core/dtype.h"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/device/scaled_dot_product_attention_flash.cuh"
#include "harmonic/cuda/scaled_dot_product_attention_route.h"
#include "harmonic/ops/dropout_functors.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"

namespace hm::cuda {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

template <class T>
struct Geometry {  // sizes and inputs shared by every pass
  const T *q, *k, *v;
  const bool* pad;  // (B, Nk) or null
  const T* bias;    // (Bb, Hb, Nq, Nk) or null
  int64_t Bb, Hb;   // the bias's batch and head dims: 1 (shared by every b or h) or B, H
  int64_t H, Nq, Nk, D, Dv;
  double scale;
  bool causal, drop;
  float pf;
  T drop_scale;
  uint64_t seed, offset;
  const int64_t* offset_base;  // null, or a captured draw's device value added to offset

  HM_HD bool blocked(int64_t row, int64_t j) const {
    const int64_t i = row % Nq, b = row / Nq / H;
    return (causal && j > i + (Nk - Nq)) || (pad && pad[b * Nk + j]);
  }
  // One past the last key row may see.
  HM_HD int64_t key_end(int64_t row) const {
    if (!causal) return Nk;
    const int64_t e = row % Nq + (Nk - Nq) + 1;
    return e < 0 ? 0 : (e > Nk ? Nk : e);
  }
  // scale q_row . k_(bh, j) + bias (may be -inf: the bias blocks key j)
  HM_HD double logit(int64_t row, int64_t j) const {
    const int64_t bh = row / Nq;
    const T *qi = q + row * D, *kj = k + (bh * Nk + j) * D;
    double acc = 0.0;
    for (int64_t d = 0; d < D; ++d) acc += static_cast<double>(qi[d]) * static_cast<double>(kj[d]);
    acc *= scale;
    if (bias) {
      const int64_t b = Bb == 1 ? 0 : bh / H, h = Hb == 1 ? 0 : bh % H;
      acc += static_cast<double>(bias[((b * Hb + h) * Nq + row % Nq) * Nk + j]);
    }
    return acc;
  }
  HM_HD T keep_scale(int64_t row, int64_t j) const {
    if (!drop) return T(1);
    return dropout_keep(seed, offset_base ? offset + static_cast<uint64_t>(*offset_base) : offset, static_cast<uint64_t>(row * Nk + j), pf) ? drop_scale : T(0);
  }
};

template <class T>
struct ForwardRow {
  Geometry<T> g;
  T *out, *lse;
  HM_HD void operator()(int64_t row) const {
    const int64_t Dv = g.Dv, bh = row / g.Nq, jend = g.key_end(row);
    T* o = out + row * Dv;
    for (int64_t e = 0; e < Dv; ++e) o[e] = T(0);
    double m = -std::numeric_limits<double>::infinity(), l = 0.0;
    for (int64_t j = 0; j < jend; ++j) {
      if (g.blocked(row, j)) continue;
      const double s = g.logit(row, j);
      if (s == kNegInf) continue;  // blocked by the bias (exp(s - m) would be NaN while m = -inf)
      if (s > m) {
        const double corr = CudaMath::exp(m - s);  // 0 on the first visible key
        l *= corr;
        for (int64_t e = 0; e < Dv; ++e) o[e] = static_cast<T>(o[e] * corr);
        m = s;
      }
      const double p = CudaMath::exp(s - m);
      l += p;
      const T w = static_cast<T>(p) * g.keep_scale(row, j);
      if (w == T(0)) continue;
      const T* vj = g.v + (bh * g.Nk + j) * Dv;
      for (int64_t e = 0; e < Dv; ++e) o[e] += w * vj[e];
    }
    if (l == 0.0) {  // every key masked: zeros
      lse[row] = -std::numeric_limits<T>::infinity();
      return;
    }
    const T inv = static_cast<T>(1.0 / l);
    for (int64_t e = 0; e < Dv; ++e) o[e] *= inv;
    lse[row] = static_cast<T>(m + CudaMath::log(l));
  }
};

template <class T>
struct BackwardRow {  // pass 1
  Geometry<T> g;
  const T *out, *lse, *grad;  // (rows, Dv), (rows), (rows, Dv)
  T *delta, *dq;              // (rows), (rows, D)
  HM_HD void operator()(int64_t row) const {
    const int64_t Dv = g.Dv, D = g.D, bh = row / g.Nq, jend = g.key_end(row);
    const T *gi = grad + row * Dv, *oi = out + row * Dv;
    T* dqi = dq + row * D;
    for (int64_t d = 0; d < D; ++d) dqi[d] = T(0);
    T dl = T(0);
    for (int64_t e = 0; e < Dv; ++e) dl += gi[e] * oi[e];
    delta[row] = dl;
    const T l = lse[row];
    if (l == -std::numeric_limits<T>::infinity()) return;
    for (int64_t j = 0; j < jend; ++j) {
      if (g.blocked(row, j)) continue;
      const double s = g.logit(row, j);
      if (s == kNegInf) continue;  // blocked by the bias: P = 0
      const T p = static_cast<T>(CudaMath::exp(s - static_cast<double>(l)));
      const T* vj = g.v + (bh * g.Nk + j) * Dv;
      T dp = T(0);
      for (int64_t e = 0; e < Dv; ++e) dp += gi[e] * vj[e];
      const T ds = p * (dp * g.keep_scale(row, j) - dl) * static_cast<T>(g.scale);
      const T* kj = g.k + (bh * g.Nk + j) * D;
      for (int64_t d = 0; d < D; ++d) dqi[d] += ds * kj[d];
    }
  }
};

template <class T>
struct BackwardKey {  // pass 2: one thread per (bh, j)
  Geometry<T> g;
  const T *lse, *grad, *delta;
  T *dk, *dv;
  HM_HD void operator()(int64_t kr) const {
    const int64_t Nk = g.Nk, Nq = g.Nq, D = g.D, Dv = g.Dv, bh = kr / Nk, j = kr % Nk;
    T *dkj = dk + kr * D, *dvj = dv + kr * Dv;
    const T* vj = g.v + kr * Dv;
    for (int64_t d = 0; d < D; ++d) dkj[d] = T(0);
    for (int64_t e = 0; e < Dv; ++e) dvj[e] = T(0);
    for (int64_t i = 0; i < Nq; ++i) {
      const int64_t row = bh * Nq + i;
      const T l = lse[row];
      if (l == -std::numeric_limits<T>::infinity() || g.blocked(row, j)) continue;
      const double s = g.logit(row, j);
      if (s == kNegInf) continue;  // blocked by the bias: P = 0
      const T p = static_cast<T>(CudaMath::exp(s - static_cast<double>(l)));
      const T ks = g.keep_scale(row, j);
      const T* gi = grad + row * Dv;
      T dp = T(0);
      for (int64_t e = 0; e < Dv; ++e) {
        dp += gi[e] * vj[e];
        dvj[e] += p * ks * gi[e];
      }
      const T ds = p * (dp * ks - delta[row]) * static_cast<T>(g.scale);
      const T* qi = g.q + row * D;
      for (int64_t d = 0; d < D; ++d) dkj[d] += ds * qi[d];
    }
  }
};

template <class T>
struct BackwardBias {  // pass 3: one thread per bias element e = ((bb Hb + hb) Nq + i) Nk + j
  Geometry<T> g;
  int64_t B;
  const T *lse, *grad, *delta;
  T* dbias;  // (Bb, Hb, Nq, Nk)
  HM_HD void operator()(int64_t e) const {
    const int64_t Nq = g.Nq, Nk = g.Nk, H = g.H, Dv = g.Dv;
    const int64_t j = e % Nk, i = e / Nk % Nq, bb = e / (Nq * Nk) / g.Hb, hb = e / (Nq * Nk) % g.Hb;
    // The (b, h) this element covers: every b (h) of a shared batch (head) dim, else its own.
    const int64_t b0 = g.Bb == 1 ? 0 : bb, b1 = g.Bb == 1 ? B : bb + 1;
    const int64_t h0 = g.Hb == 1 ? 0 : hb, h1 = g.Hb == 1 ? H : hb + 1;
    T acc = T(0);
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t h = h0; h < h1; ++h) {
        const int64_t bh = b * H + h, row = bh * Nq + i;
        const T l = lse[row];
        if (l == -std::numeric_limits<T>::infinity() || g.blocked(row, j)) continue;
        const double s = g.logit(row, j);
        if (s == kNegInf) continue;  // blocked by the bias: P = 0
        const T p = static_cast<T>(CudaMath::exp(s - static_cast<double>(l)));
        const T *gi = grad + row * Dv, *vj = g.v + (bh * Nk + j) * Dv;
        T dp = T(0);
        for (int64_t c = 0; c < Dv; ++c) dp += gi[c] * vj[c];
        acc += p * (dp * g.keep_scale(row, j) - delta[row]);  // dS / scale, the logit's gradient
      }
    dbias[e] = acc;
  }
};

// The slot contract the index math relies on: bias (Bb, Hb, Nq, Nk) contiguous in q's dtype and
// device, Bb in {1, B}, Hb in {1, H}.
template <Exec E>
void check_bias(const Tensor& bias, const Tensor& q, const Tensor& k, const char* fn) {
  if (!bias.defined()) return;
  kernel_device(E, fn, {&q, &bias});
  const int64_t B = q.size(0), H = q.size(1);
  HM_CHECK(bias.dim() == 4 && bias.is_contiguous() && bias.dtype() == q.dtype() &&
               (bias.size(0) == 1 || bias.size(0) == B) && (bias.size(1) == 1 || bias.size(1) == H) &&
               bias.size(2) == q.size(2) && bias.size(3) == k.size(2),
           fn, "bias {} must be contiguous (1 or {}, 1 or {}, {}, {}) in q's dtype, q {}", bias.desc(), B, H, q.size(2),
           k.size(2), q.desc());
}

template <class T>
Geometry<T> geometry(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                     const SdpaArgs& args) {
  Geometry<T> g;
  g.q = static_cast<const T*>(q.raw_data()), g.k = static_cast<const T*>(k.raw_data());
  g.v = static_cast<const T*>(v.raw_data());
  g.pad = pad.defined() ? static_cast<const bool*>(pad.raw_data()) : nullptr;
  g.bias = bias.defined() ? static_cast<const T*>(bias.raw_data()) : nullptr;
  g.Bb = bias.defined() ? bias.size(0) : 1, g.Hb = bias.defined() ? bias.size(1) : 1;
  g.H = q.size(1), g.Nq = q.size(2), g.D = q.size(3), g.Nk = k.size(2), g.Dv = v.size(3);
  g.scale = args.scale;
  g.causal = args.causal;
  g.drop = args.dropout_p > 0.0;
  g.pf = static_cast<float>(args.dropout_p);
  g.drop_scale = g.drop ? static_cast<T>(1.0 / (1.0 - args.dropout_p)) : T(1);
  g.seed = args.seed, g.offset = args.offset, g.offset_base = args.offset_base;
  return g;
}

template <Exec E>
void forward_on(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                const SdpaArgs& args, const Tensor& out, const Tensor& lse) {
  const int device = kernel_device(E, "scaled_dot_product_attention", {&q, &k, &v, &out, &lse});
  check_bias<E>(bias, q, k, "scaled_dot_product_attention");
  if (sdpa_forward_route(q.size(3), v.size(3), q.dtype()) == SdpaKernel::Tiled &&
      flash_forward<E>(q, k, v, pad, bias, args, out, lse))
    return;
  dispatch_float(q.dtype(), "scaled_dot_product_attention", [&]<class T>() {
    const Geometry<T> g = geometry<T>(q, k, v, pad, bias, args);
    for_each_index(E, device, q.size(0) * g.H * g.Nq,
                   ForwardRow<T>{g, static_cast<T*>(out.raw_data()), static_cast<T*>(lse.raw_data())});
  });
}

template <Exec E>
void backward_on(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                 const Tensor& out, const Tensor& lse, const Tensor& grad, const SdpaArgs& args, const Tensor& dq,
                 const Tensor& dk, const Tensor& dv, const Tensor& dbias) {
  constexpr const char* kFn = "scaled_dot_product_attention_backward";
  const int device = kernel_device(E, kFn, {&q, &k, &v, &out, &lse, &grad, &dq, &dk, &dv});
  check_bias<E>(bias, q, k, kFn);
  if (dbias.defined()) {
    HM_CHECK(bias.defined() && dbias.shape() == bias.shape(), kFn, "dbias {} needs a bias of its shape, got {}",
             dbias.desc(), bias.defined() ? bias.desc() : "none");
    check_bias<E>(dbias, q, k, kFn);
  }
  const SdpaBackwardKernel route = sdpa_backward_route(q.size(3), v.size(3), q.dtype(), dbias.defined());
  if (route != SdpaBackwardKernel::Reference && flash_backward<E>(q, k, v, pad, bias, out, lse, grad, args, dq, dk, dv,
                                                                  dbias, route == SdpaBackwardKernel::TiledOnePass))
    return;
  dispatch_float(q.dtype(), kFn, [&]<class T>() {
    const Geometry<T> g = geometry<T>(q, k, v, pad, bias, args);
    const int64_t rows = q.size(0) * g.H * g.Nq, keys = q.size(0) * g.H * g.Nk;
    Tensor delta = Tensor::empty(Shape{rows}, q.dtype(), q.device());
    T* pd = static_cast<T*>(delta.raw_data());
    const T *po = static_cast<const T*>(out.raw_data()), *pl = static_cast<const T*>(lse.raw_data());
    const T* pg = static_cast<const T*>(grad.raw_data());
    for_each_index(E, device, rows, BackwardRow<T>{g, po, pl, pg, pd, static_cast<T*>(dq.raw_data())});
    for_each_index(E, device, keys,
                   BackwardKey<T>{g, pl, pg, pd, static_cast<T*>(dk.raw_data()), static_cast<T*>(dv.raw_data())});
    if (dbias.defined())
      for_each_index(E, device, dbias.numel(),
                     BackwardBias<T>{g, q.size(0), pl, pg, pd, static_cast<T*>(dbias.raw_data())});
  });
}

[[maybe_unused]] const bool bound = bind_cuda(sdpa_kernel, forward_on<Exec::Device>, forward_on<Exec::Host>) &&
                                    bind_cuda(sdpa_backward_kernel, backward_on<Exec::Device>, backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
