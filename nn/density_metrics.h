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

// Smoothness metric (Definition 3.2, Appendix B): s(y) = sum_{sigma=1}^{100}
// 6 / (pi^2 sigma^2) * || y - G_sigma * y ||_2 per row. Lower is smoother. (..., m) -> (...).
Tensor smoothness(const Tensor& y, int64_t max_sigma = 100);

// Mean squared error of the expected bin: for each row the expectation of the bin index under
// pmf (n, m), rounded to the nearest bin, mapped to that bin's centre on [-1, 1], against the
// centre of target_bins (n) int64. -> float64 mean over rows.
double expected_bin_mse(const Tensor& pmf, const Tensor& target_bins);

// exp(mean(nll)) of per-point negative log-likelihoods (n) (any float dtype).
double perplexity(const Tensor& nll);

}  // namespace hm::nn
