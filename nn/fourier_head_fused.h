// Fused CPU forms of the Fourier and GMM heads' per-step losses (nn/fourier_head.h), each one
// taped op with an analytic backward instead of tens of small composed ops: the toy study
// (models/fourier_toy.h) takes tens of thousands of steps on 32-row batches, where the
// composed forms' per-op overhead dominated (the regulariser alone was ~10x a whole step).
// Each returns an undefined Tensor when it does not apply (not CPU float32/float64), so the
// caller falls back to the composed ops, which remain the reference (tests compare both).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace hm::nn::fused {

// fourier_regularizer(coeffs, gamma, bins, code_scaling) (ops/fourier_head.h): 0-d.
Tensor fourier_regularizer(const Tensor& coeffs, double gamma, int64_t bins, bool code_scaling);

// mean(-log(p(t) + 1e-10)) of the Fourier density of each row of coeffs (rows..., 2(N+1)) at
// its target t (rows...) (no gradient to the targets): FourierHeadMLE's nll without the
// regulariser. 0-d.
Tensor fourier_nll(const Tensor& coeffs, const Tensor& targets);

// GMMHead's log(pmf + 1e-5) from the component means (..., K) and stds (K): the equal-weight
// mixture density at the bin centres, normalised over the bins. -> (..., bins).
Tensor gmm_log_pmf(const Tensor& means, const Tensor& stds, int64_t bins);

// mean(-log(p(t) + 1e-10)) of the equal-weight mixture with means (..., K) and stds |stds|
// (K) at targets (...) (no gradient to the targets). 0-d.
Tensor gmm_nll(const Tensor& means, const Tensor& stds, const Tensor& targets);

}  // namespace hm::nn::fused
