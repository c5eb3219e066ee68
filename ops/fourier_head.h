// The Fourier head (Gillman et al., ICLR 2025, section 2.2 and Algorithm 1): a
// categorical distribution over m bins of [-1, 1] whose density is a degree-N Fourier
// series with non-negative values by construction.
//
// coeffs (..., 2(N+1)) = [alpha_0..alpha_N, beta_0..beta_N], a_l = alpha_l + i beta_l
// (halves, not interleaved). With c_k = sum_{l=0}^{N-k} a_l conj(a_{l+k}) the paper's density is
//   p(z) = 1/2 + Re(sum_{k=1}^N (c_k / c_0) e^{i pi k z}) = |A(z)|^2 / (2 sum_l |a_l|^2),
//   A(z) = sum_l a_l e^{-i pi l z},  R = Re A = sum_l alpha_l cos(pi l z) + beta_l sin(pi l z),
//                                    I = Im A = sum_l beta_l cos(pi l z) - alpha_l sin(pi l z).
// (The sign of the exponent in A is chosen so the real form equals the paper's autocorrelation
// form exactly; the opposite sign gives p(-z), i.e. the bins in reverse order.)
// All ops take float32 or float64; bfloat16/float16 are rejected (upcast the head's input:
// the reference code lost accuracy running the head in reduced precision).
#pragma once
#include <utility>

#include "harmonic/core/tensor.h"

namespace hm {

// log(y_j + 1e-5) with y_j = p(b_j) / sum_j' p(b_j') at the bin centres b_j = -1 + (2j+1)/m:
// coeffs (..., 2(N+1)) -> (..., bins). One GEMM against a cached (2N+2, 2 bins) cos/sin table
// plus a fused row pass; analytic backward (one row pass, one GEMM). Feed the result to
// cross_entropy as logits (the paper's "inverse softmax").
Tensor fourier_head_log_pmf(const Tensor& coeffs, int64_t bins);

// The continuous density p(z) at points in [-1, 1]: coeffs (..., 2(N+1)), points either (P)
// (shared by every row) or (..., P) with the same leading dims -> (..., P). Differentiable in
// both. Composed from elementwise ops (memory (..., P, N+1)): for a few points per row.
Tensor fourier_pdf(const Tensor& coeffs, const Tensor& points);

// Closed-form CDF F(x) = (x+1)/2 + Re(sum_k (c_k/c_0)(e^{i pi k x} - (-1)^k) / (i pi k)), in
// real arithmetic; shapes as fourier_pdf. F(-1) = 0, F(1) = 1, F' = p.
Tensor fourier_cdf(const Tensor& coeffs, const Tensor& points);

// The unnormalised autocorrelation c_k = sum_{l=0}^{N-k} a_l conj(a_{l+k}) for k = 0..N:
// coeffs (..., 2(N+1)) -> {Re c (..., N+1), Im c (..., N+1)}. Differentiable.
std::pair<Tensor, Tensor> fourier_autocorrelation(const Tensor& coeffs);

// Smoothness regulariser, a 0-d tensor: gamma (2 pi^2 / m) sum_{k=1}^N k^2 |c_k|^2 (paper,
// unnormalised c_k), averaged over the leading (batch) dims. code_scaling = true gives the
// authors' code's gamma * 2 * sum_k 2 pi^2 k^2 |c_k|^2 instead (the same term times 2m).
// One fused pass with an analytic backward (ops/fourier_head_kernels.h, CPU and CUDA kernels);
// composed from fourier_autocorrelation where a build binds no kernel.
Tensor fourier_regularizer(const Tensor& coeffs, double gamma, int64_t bins, bool code_scaling = false);

namespace detail {
// fourier_regularizer's composed form, the reference the tests hold the fused kernels against.
Tensor fourier_regularizer_composed(const Tensor& coeffs, double gamma, int64_t bins, bool code_scaling = false);
}  // namespace detail

// Bin centres -1 + (2j+1)/m, j = 0..m-1: (bins) float64.
Tensor fourier_bin_centres(int64_t bins);

}  // namespace hm
