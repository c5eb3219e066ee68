// The FFT op family: real and complex discrete Fourier transforms over the last dim, the
// short-time Fourier transform and a log-power spectrogram, all differentiable.
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

#include "core/factories.h"
#include "core/tensor.h"

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

// (n): torch.hann_window: 0.5 - 0.5 cos(2 pi k / N), N = n (periodic) or n - 1 (symmetric).
Tensor hann_window(int64_t n, bool periodic = true, TensorOptions opt = {});

// x (..., T) -> (..., n_fft/2 + 1, frames, 2): torch.stft(x, n_fft, hop, window=window,
// center=center, pad_mode='reflect', normalized=False, onesided=True), viewed as real.
// Frame f holds samples f hop .. f hop + n_fft - 1 of x (reflect-padded by n_fft/2 on each
// side when center), times the window; frames = 1 + (T + 2 pad - n_fft) / hop. hop defaults
// to n_fft / 4; window (win <= n_fft) is zero-padded on both sides to n_fft like torch's,
// undefined = rectangular. Differentiable in x (the window is a constant). The result is a
// transposed view of the (..., frames, bins, 2) transform, as torch's is.
Tensor stft(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop = std::nullopt, const Tensor& window = {},
            bool center = true);

// x (..., T) -> (..., n_fft/2 + 1, frames): log(|stft(x)|^2 + eps), i.e. in PyTorch
// torch.log(torch.stft(x, ..., return_complex=True).abs() ** 2 + eps).
Tensor log_spectrogram(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop = std::nullopt,
                       const Tensor& window = {}, bool center = true, double eps = 1e-10);

namespace detail {
// The frames stft transforms: x (..., T) -> (..., frames, n_fft), windowed and reflect-padded
// as described at stft. Differentiable in x (backward: overlap-add folded through the padding).
Tensor stft_frames(const Tensor& x, int64_t n_fft, std::optional<int64_t> hop = std::nullopt, const Tensor& window = {},
                   bool center = true);
}  // namespace detail

}  // namespace hm
