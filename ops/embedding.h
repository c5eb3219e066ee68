// Embedding lookup.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// weight (V, D), indices int64 (...) -> (..., D). Rows at padding_idx get no gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);

}  // namespace hm
