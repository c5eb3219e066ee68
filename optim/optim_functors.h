// Per-element updates of the optimizers (PyTorch 1.13 semantics, single-tensor path). One
// step's scalars are computed in double (bias corrections, step size) and cast to the
// parameter dtype once per tensor, on the host or, in capturable mode, from the lr and step
// held on the device, by the same HM_HD constructor; one HM_HD function then serves the CPU
// loop and a CUDA kernel.
#pragma once
#include <cmath>
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm::optim {

// One SGD step for one parameter.
struct SgdStep {
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
  bool first = false;  // the momentum buffer is uninitialised: it becomes the first d_p
};

template <class T>
struct SgdCoeffs {
  T neg_lr, momentum, one_minus_dampening, weight_decay, sign;
  explicit SgdCoeffs(const SgdStep& s) : SgdCoeffs(s, s.lr) {}
  HM_HD SgdCoeffs(const SgdStep& s, double lr)  // lr: s.lr, or the device's value (capturable)
      : neg_lr(T(-lr)),
        momentum(T(s.momentum)),
        one_minus_dampening(T(1 - s.dampening)),
        weight_decay(T(s.weight_decay)),
        sign(s.maximize ? T(-1) : T(1)) {}
};

// torch.optim.SGD: d = ±g + wd p; buf = first ? d : momentum buf + (1 - dampening) d;
// d = nesterov ? d + momentum buf : buf; p -= lr d. Momentum = false skips the buffer.
template <class T, bool Momentum, bool Nesterov, bool First>
HM_HD void sgd_update(T& p, T g, T& buf, const SgdCoeffs<T>& c) {
  T d = c.sign * g + c.weight_decay * p;
  if constexpr (Momentum) {
    if constexpr (First)
      buf = d;
    else
      buf = buf * c.momentum + c.one_minus_dampening * d;
    if constexpr (Nesterov)
      d = d + c.momentum * buf;
    else
      d = buf;
  }
  p = p + c.neg_lr * d;
}

// One Adam/AdamW step for one parameter; `step` counts this update (1 on the first).
struct AdamStep {
  double lr = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  int64_t step = 1;
  bool decoupled = false;  // AdamW: p *= 1 - lr wd before the update; Adam: g += wd p
  bool amsgrad = false, maximize = false;
};

template <class T>
struct AdamCoeffs {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, neg_step_size, bias_correction2_sqrt, eps, l2, param_scale, sign;
  explicit AdamCoeffs(const AdamStep& s) : AdamCoeffs(s, s.lr, double(s.step)) {}
  // lr and step: s.lr and s.step, or the device's values (capturable mode); same expressions.
  HM_HD AdamCoeffs(const AdamStep& s, double lr, double step)
      : beta1(T(s.beta1)),
        one_minus_beta1(T(1 - s.beta1)),
        beta2(T(s.beta2)),
        one_minus_beta2(T(1 - s.beta2)),
        neg_step_size(T(-lr / (1 - std::pow(s.beta1, step)))),
        bias_correction2_sqrt(T(std::sqrt(1 - std::pow(s.beta2, step)))),
        eps(T(s.eps)),
        l2(T(s.decoupled ? 0.0 : s.weight_decay)),
        param_scale(T(s.decoupled ? 1 - lr * s.weight_decay : 1.0)),
        sign(s.maximize ? T(-1) : T(1)) {}
};

// torch.optim.Adam/AdamW: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; vmax = max(vmax, v);
// p -= lr / (1 - b1^t) * m / (sqrt(v or vmax) / sqrt(1 - b2^t) + eps). eps outside the sqrt.
template <class T, bool Amsgrad>
HM_HD void adam_update(T& p, T g, T& m, T& v, T& vmax, const AdamCoeffs<T>& c) {
  p = p * c.param_scale;      // decoupled decay (scale 1 for Adam)
  g = c.sign * g + c.l2 * p;  // L2 decay in the gradient (0 for AdamW)
  m = m * c.beta1 + c.one_minus_beta1 * g;
  v = v * c.beta2 + c.one_minus_beta2 * g * g;
  T second = v;
  if constexpr (Amsgrad) {
    vmax = vmax > v ? vmax : v;
    second = vmax;
  }
  T denom = std::sqrt(second) / c.bias_correction2_sqrt + c.eps;
  p = p + c.neg_step_size * (m / denom);
}

// -- clip_grad_norm_ (norm type 2) ---------------------------------------------------------
// Each gradient is cut into chunks of kClipChunk elements; lane t of a chunk sums the squares
// of elements t, t + kClipLanes, ... in float64 (fma, so no compiler contracts differently),
// the lanes are summed by a fixed pairwise tree, a tensor's chunk sums in order. A tensor's
// norm is rounded to its dtype (as torch's per-tensor norm is), the squares of those norms
// summed in float64 in list order. The order is the same on the CPU, the host twin and a GPU
// (one block per chunk, one thread per lane).
inline constexpr int kClipLanes = 256;
inline constexpr int64_t kClipChunk = int64_t{kClipLanes} * 64;

// Lane t's sum of squares over x[0, n) of one chunk.
template <class T>
HM_HD double clip_lane_sum(const T* x, int64_t n, int t) {
  double acc = 0;
  for (int64_t i = t; i < n; i += kClipLanes) acc = std::fma(double(x[i]), double(x[i]), acc);
  return acc;
}

// The total of kClipLanes lane sums, pairwise: lanes[t] += lanes[t + half] for half = 128, 64, ...
inline double clip_tree_sum(double* lanes) {
  for (int half = kClipLanes / 2; half > 0; half /= 2)
    for (int t = 0; t < half; ++t) lanes[t] += lanes[t + half];
  return lanes[0];
}

// The contribution of one tensor to the total: its norm rounded to T, squared in float64.
template <class T>
HM_HD double clip_norm_square(const double* chunk_sums, int64_t chunks) {
  double s = 0;
  for (int64_t c = 0; c < chunks; ++c) s += chunk_sums[c];
  const double norm = double(T(std::sqrt(s)));
  return norm * norm;
}

// min(1, max_norm / (total + 1e-6)) in float64, NaN propagating (torch.clamp(max=1.0)).
HM_HD double clip_coefficient(double max_norm, double total) {
  const double c = max_norm / (total + 1e-6);
  return c != c ? c : (c < 1.0 ? c : 1.0);
}

}  // namespace hm::optim
