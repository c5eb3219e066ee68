// Per-step losses of the continuous Fourier head (FourierHeadMLE) and the GMM heads
// (nn/fourier_head.h), each a single op with an analytic backward where a fused kernel
// exists (the CPU: ops/head_losses_kernels.h) and the composed form from elementwise ops on
// other devices. The composed forms stay public in `detail` as the reference the tests compare
// the fused kernels against. Float32 or float64; all inputs share dtype and device.
// The Fourier regulariser, fused the same way, is fourier_regularizer (ops/fourier_head.h).
#pragma once
#include <cstdint>

#include "harmonic/core/tensor.h"

namespace hm {

// mean over rows of -log(p(t) + 1e-10), p the Fourier density of each row (ops/fourier_head.h):
// coeffs (..., 2(N+1)), targets (...) in [-1, 1] -> 0-d. No gradient to the targets.
Tensor fourier_nll(const Tensor& coeffs, const Tensor& targets);

// log(pmf + 1e-5) of an equal-weight Gaussian mixture binned on the m bin centres
// -1 + (2j+1)/m of [-1, 1]: the density at the centres normalised over the bins.
// means (..., K), stds (K) (used as given: keep them positive) -> (..., bins).
Tensor gmm_log_pmf(const Tensor& means, const Tensor& stds, int64_t bins);

// mean over rows of -log(p(t) + 1e-10), p the equal-weight mixture density with means
// (..., K) and stds |stds| (K) at targets (...) -> 0-d. No gradient to the targets.
Tensor gmm_nll(const Tensor& means, const Tensor& stds, const Tensor& targets);

namespace detail {
// The composed forms (the same shapes and checks), used off the CPU and by the tests.
Tensor fourier_nll_composed(const Tensor& coeffs, const Tensor& targets);
Tensor gmm_log_pmf_composed(const Tensor& means, const Tensor& stds, int64_t bins);
Tensor gmm_nll_composed(const Tensor& means, const Tensor& stds, const Tensor& targets);
}  // namespace detail

}  // namespace hm
