// The short-time Fourier transform on the FFT op family (ops/fft.h), its framing, and a log-power
// spectrogram, all differentiable in x.
#pragma once
#include <cstdint>
#include <optional>

#include "harmonic/core/factories.h"
#include "harmonic/core/tensor.h"

namespace hm {

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
