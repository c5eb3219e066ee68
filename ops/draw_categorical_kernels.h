// Kernel slot of draw_categorical (ops/draw_categorical.h; see core/dispatch.h).
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// weights (N, M) contiguous float32/float64, u (N) float64 -> index (N) int64; pmf (N, M) float64
// when defined. A row that cannot be drawn from gets index -1; the kernel then raises the op's
// error (the CUDA kernel through its index check, deferred inside a cuda::DeferredChecks scope).
inline Kernel<void(const Tensor& weights, const Tensor& u, int64_t top_k, const Tensor& index, const Tensor& pmf)>
    draw_categorical_kernel{"draw_categorical"};

}  // namespace hm
