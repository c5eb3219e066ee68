// Fused whole-sequence recurrence of the Fourier Recurrent Unit (and of the statistical
// recurrent unit, which has the same shape with constant coefficients): ONE tape entry with a
// hand-written backward through time. See ops/fru_recurrence_kernels.h for the exact recurrence.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// px (T, B, d): the input part of phi's pre-activation, x_t W_x^T + b_phi, for every step
//   (time-major; computed outside as one GEMM over all steps).
// w_r (R, K*d), b_r (R): r_t = relu(mu_{t-1} w_r^T + b_r).
// w_pr (d, R): the r_t part of phi's weight.
// coef (T, K): per-step, per-frequency input coefficient (FRU: cos(2 pi f_k t/T + 2 pi theta_k)/T).
// decay (K): m_k, a constant (no gradient).
// mu0 (B, K*d) or undefined (zeros).
// Returns mu (T, B, K*d). Differentiable w.r.t. px, w_r, b_r, w_pr, coef and mu0.
Tensor fru_recurrence(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                      const Tensor& decay, const Tensor& mu0 = {});

// The same recurrence returning only the last state mu_{T-1} (B, K*d): what a classifier on
// the last step needs. On the CPU the (T, B, K*d) states are never materialised (forward or
// backward); other devices select the last step of fru_recurrence.
Tensor fru_recurrence_last(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr,
                           const Tensor& coef, const Tensor& decay, const Tensor& mu0 = {});

}  // namespace hm
