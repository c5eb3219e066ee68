// Kernel slots of the fused Fourier/statistical recurrence (ops/fru_recurrence.h). Time-major
// layout so every step is one contiguous (B, ...) block and the weight gradients are single
// GEMMs over all T*B rows.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// For t = 0..T-1, with mu_{-1} = mu0:
//   r_t   = relu(mu_{t-1} w_r^T + b_r)                      (B, R)
//   phi_t = relu(px_t + r_t w_pr^T)                         (B, d)
//   mu_t[:, k, :] = decay_k mu_{t-1}[:, k, :] + coef[t, k] phi_t
// px (T, B, d), w_r (R, K*d), b_r (R), w_pr (d, R), coef (T, K), decay (K), mu0 (B, K*d);
// outputs mu (T, B, K*d), r (T, B, R), phi (T, B, d). All contiguous, same float dtype.
// mu may also be (1, B, K*d) with T > 1: then only mu_{T-1} is written (fru_recurrence_last;
// CPU only, other devices get the full mu).
inline Kernel<void(const Tensor& px, const Tensor& w_r, const Tensor& b_r, const Tensor& w_pr, const Tensor& coef,
                   const Tensor& decay, const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi)>
    fru_forward_kernel{"fru_forward"};

// Backward through time of the above given g_mu (T, B, K*d) and the forward's saved mu, r,
// phi. Writes every gradient (shapes of the matching inputs); all contiguous. g_mu (1, B, K*d)
// with T > 1 is the gradient of mu_{T-1} alone (the last-only forward; CPU only).
inline Kernel<void(const Tensor& g_mu, const Tensor& w_r, const Tensor& w_pr, const Tensor& coef, const Tensor& decay,
                   const Tensor& mu0, const Tensor& mu, const Tensor& r, const Tensor& phi, const Tensor& g_px,
                   const Tensor& g_w_r, const Tensor& g_b_r, const Tensor& g_w_pr, const Tensor& g_coef,
                   const Tensor& g_mu0)>
    fru_backward_kernel{"fru_backward"};

}  // namespace hm
