// Embedding lookup.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// weight (V, D), indices int64 (...) -> (..., D). No gradient at padding_idx; CUDA's by atomics (deterministic.h).
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);

}  // namespace hm
