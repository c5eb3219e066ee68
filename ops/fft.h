// The FFT op family: real and complex discrete Fourier transforms over the last dim, all
// differentiable (the short-time transform built on them is ops/stft.h).
//
// Complex tensors are float tensors with a trailing dim of 2 holding (re, im), the layout of
// torch.view_as_real: Harmonic has no complex dtype, and this way every existing op (slicing,
// sums, squares) works on spectra unchanged. Normalisation follows torch.fft's `norm`:
// Backward (default) leaves the forward transform unscaled and divides the inverse by n,
// Forward the reverse, Ortho scales both by 1/sqrt(n). Any length n >= 1 (mixed radix 2/3/4/5
// and generic small primes, Bluestein for large prime factors: ops/cpu/fft_plan.h; cuFFT on
// CUDA), float32 or float64, any leading (batch) dims, non-contiguous inputs.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "harmonic/core/tensor.h"

namespace hm {

enum class FftNorm { Backward, Forward, Ortho };
// "backward" | "forward" | "ortho"; anything else raises an error naming fn.
FftNorm parse_fft_norm(std::string_view name, std::string_view fn);

// x (..., L) -> (..., n/2 + 1, 2): X_k = sum_j x_j exp(-2 pi i j k / n), k = 0..n/2 (torch.fft.rfft).
// n defaults to L; a smaller n truncates x, a larger one zero-pads it.
Tensor rfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, FftNorm norm = FftNorm::Backward);

// spec (..., m, 2) -> (..., n): the real signal whose one-sided spectrum is spec
// (torch.fft.irfft): x_j = (1/n) sum_{k<n} X_k exp(2 pi i j k / n), X Hermitian-extended.
// n defaults to 2 (m - 1); bins past n/2 are dropped, missing ones are zeros, and the
// imaginary parts of X_0 and (n even) X_{n/2} are ignored.
Tensor irfft(const Tensor& spec, std::optional<int64_t> n = std::nullopt, FftNorm norm = FftNorm::Backward);

// x (..., n, 2) -> (..., n, 2): the complex DFT (torch.fft.fft) and its inverse (torch.fft.ifft).
Tensor fft(const Tensor& x, FftNorm norm = FftNorm::Backward);
Tensor ifft(const Tensor& x, FftNorm norm = FftNorm::Backward);

}  // namespace hm
