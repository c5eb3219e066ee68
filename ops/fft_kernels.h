// Kernel slots of the FFT family (ops/fft.h). Every slot takes contiguous tensors of one
// float dtype; complex values are a trailing dim of 2 (re, im). The CPU bodies are Harmonic's
// own FFT (ops/cpu/fft.cpp over the plans of ops/cpu/fft_plan.h), the CUDA bodies call cuFFT
// (cuda/fft.cu).
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// x (rows, n) -> out (rows, n/2 + 1, 2): scale * sum_j x_j exp(-2 pi i j k / n).
inline Kernel<void(const Tensor& x, int64_t n, double scale, const Tensor& out)> rfft_kernel{"rfft"};

// spec (rows, n/2 + 1, 2) -> out (rows, n): scale * sum_{k<n} X_k exp(+2 pi i j k / n) with X
// extended by Hermitian symmetry; Im X_0 and (n even) Im X_{n/2} are ignored.
inline Kernel<void(const Tensor& spec, int64_t n, double scale, const Tensor& out)> irfft_kernel{"irfft"};

// x (rows, n, 2) -> out (rows, n, 2): scale * sum_j x_j exp(-+2 pi i j k / n) (inverse: +).
inline Kernel<void(const Tensor& x, int64_t n, bool inverse, double scale, const Tensor& out)> fft_kernel{"fft"};

}  // namespace hm
