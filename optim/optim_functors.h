// Per-element updates of the optimizers (PyTorch 1.13 semantics, single-tensor path). The
// host computes one step's scalars in double (bias corrections, step size) and casts them to
// the parameter dtype once; one HM_HD function then serves the CPU loop and a CUDA kernel.
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
  explicit SgdCoeffs(const SgdStep& s)
      : neg_lr(T(-s.lr)),
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
  explicit AdamCoeffs(const AdamStep& s)
      : beta1(T(s.beta1)),
        one_minus_beta1(T(1 - s.beta1)),
        beta2(T(s.beta2)),
        one_minus_beta2(T(1 - s.beta2)),
        neg_step_size(T(-s.lr / (1 - std::pow(s.beta1, double(s.step))))),
        bias_correction2_sqrt(T(std::sqrt(1 - std::pow(s.beta2, double(s.step))))),
        eps(T(s.eps)),
        l2(T(s.decoupled ? 0.0 : s.weight_decay)),
        param_scale(T(s.decoupled ? 1 - s.lr * s.weight_decay : 1.0)),
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

}  // namespace hm::optim
