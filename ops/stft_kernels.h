// Kernel slots of the framing of stft (ops/stft.h; see core/dispatch.h); ops/fft_functors.h
// has the index math, shared by both backends.
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// The framing of stft (ops/fft_functors.h has the index math, shared by both backends).
struct FrameArgs {
  int64_t length = 0;  // T, samples per row
  int64_t n_fft = 0;   // frame length
  int64_t hop = 1;
  int64_t pad = 0;  // reflect padding on each side (center = true: n_fft / 2)
  int64_t frames = 0;
};

// x (rows, T), window (n_fft) -> out (rows, frames, n_fft): out[r, f, i] =
// x[r, reflect(f hop + i - pad)] window[i].
inline Kernel<void(const Tensor& x, const Tensor& window, const FrameArgs& args, const Tensor& out)> frame_kernel{
    "stft_frames"};

// The adjoint: g (rows, frames, n_fft), window (n_fft) -> dx (rows, T), overlap-add of
// g window folded back through the reflection.
inline Kernel<void(const Tensor& g, const Tensor& window, const FrameArgs& args, const Tensor& dx)> overlap_add_kernel{
    "stft_frames_backward"};

}  // namespace hm
