// Kernel slots of the per-step losses of the Fourier and GMM heads (ops/head_losses.h; the
// Fourier regulariser's are in ops/fourier_head_kernels.h): one fused pass per loss with an analytic backward,
// instead of tens of small composed ops (the toy study takes tens of thousands of steps on
// 32-row batches, where the composed forms' per-op overhead dominated). The CPU
// (ops/cpu/head_losses.cpp, ops/cpu/head_losses_gmm.cpp) and CUDA (cuda/head_losses.cu) bind
// them; on a device without a kernel the ops use their composed forms, so these slots are never
// called unbound.
// All tensors contiguous, one float dtype (float32/float64) except where noted; `rows` is the
// product of the leading dims; outputs and gradients are written, never accumulated.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// x (rows, 2(N+1)), t (rows) -> out (0-d) = mean_rows -log(p(t) + 1e-10).
inline Kernel<void(const Tensor& x, const Tensor& t, const Tensor& out)> fourier_nll_kernel{"fourier_nll"};
// x, t, grad_out (0-d) -> grad_x (rows, 2(N+1)); no gradient to t.
inline Kernel<void(const Tensor& x, const Tensor& t, const Tensor& grad_out, const Tensor& grad_x)>
    fourier_nll_backward_kernel{"fourier_nll_backward"};

// mu (rows, K), sd (K) -> w (rows, K, m) (each component's term at each bin, kept for the
// backward) and out (rows, m) = log(pmf + 1e-5).
inline Kernel<void(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& out)> gmm_log_pmf_kernel{
    "gmm_log_pmf"};
// mu, sd, w, grad_out (rows, m) -> grad_mu (rows, K), grad_sd (K).
inline Kernel<void(const Tensor& mu, const Tensor& sd, const Tensor& w, const Tensor& grad_out, const Tensor& grad_mu,
                   const Tensor& grad_sd)>
    gmm_log_pmf_backward_kernel{"gmm_log_pmf_backward"};

// mu (rows, K), sd (K) (|sd| is used), t (rows) -> out (0-d) = mean_rows -log(p(t) + 1e-10).
inline Kernel<void(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& out)> gmm_nll_kernel{"gmm_nll"};
// mu, sd, t, grad_out (0-d) -> grad_mu (rows, K), grad_sd (K); no gradient to t.
inline Kernel<void(const Tensor& mu, const Tensor& sd, const Tensor& t, const Tensor& grad_out, const Tensor& grad_mu,
                   const Tensor& grad_sd)>
    gmm_nll_backward_kernel{"gmm_nll_backward"};

// The CPU kernels' value of a 0-d float32/float64 upstream gradient (a CPU tensor).
inline double head_loss_grad_value(const Tensor& g) {
  return g.dtype() == DType::Float32 ? double(*g.data<float>()) : *g.data<double>();
}

}  // namespace hm
