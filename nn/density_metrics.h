// Metrics of predicted distributions over bins (Fourier head paper, section 3 and 4.1).
// Evaluation only: float64 results, no autograd.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm::nn {

// KL(p || q) per row, summed over the last dim: p, q (..., m) probabilities (rows summing to
// 1). Terms with p = 0 contribute 0; q is clamped below at 1e-30 so the result is finite.
// -> (...) float64.
Tensor kl_divergence(const Tensor& p, const Tensor& q);

// y convolved with a discrete Gaussian of std sigma and radius m - 1 (weights
// exp(-r^2 / (2 sigma^2)), r = -(m-1)..m-1, normalised to sum 1) with circular (wrap)
// boundary: out_i = sum_r w_r y_{(i + r) mod m}. (..., m) -> (..., m) float64.
Tensor circular_gaussian_filter(const Tensor& y, double sigma);

// The discrepancy D of the smoothness metric (Equation 3.1): the paper's L2 (Definition 3.2), or
// the L1 distance Appendix B compares it with (Figure 6, right).
enum class SmoothnessNorm { L2, L1 };

// Smoothness metric (Definition 3.2, Appendix B): s(y) = sum_{sigma=1}^{100}
// 6 / (pi^2 sigma^2) * || y - G_sigma * y ||_2 per row (|| . ||_1 with norm L1). Lower is
// smoother. (..., m) -> (...).
Tensor smoothness(const Tensor& y, int64_t max_sigma = 100, SmoothnessNorm norm = SmoothnessNorm::L2);

// Spectral entropy (Appendix B, Equation B.2, Inouye et al. 1991) per row: the Shannon entropy
// in bits of the relative powers S_f / S_total over the one-sided frequencies f = 1..m/2 of
// the row's DFT, divided by log2 of their count so white noise is near 1. The DC term is left
// out: every pmf has the same mean 1/m, which would otherwise dominate the power. (..., m) with
// m >= 4 -> (...); a constant row (no power above DC) gives 0.
Tensor spectral_entropy(const Tensor& y);

// Mean squared error of the expected bin: for each row the expectation of the bin index under
// pmf (n, m), rounded to the nearest bin, mapped to that bin's centre on [-1, 1], against the
// centre of target_bins (n) int64. -> float64 mean over rows.
double expected_bin_mse(const Tensor& pmf, const Tensor& target_bins);

// exp(mean(nll)) of per-point negative log-likelihoods (n) (any float dtype).
double perplexity(const Tensor& nll);

}  // namespace hm::nn
