// Kernel slots of embedding (ops/embedding.h; see core/dispatch.h).
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out (n, D) = weight (V, D) rows at indices (n); throws on an index outside [0, V).
inline Kernel<void(const Tensor& weight, const Tensor& indices, const Tensor& out)> embedding_kernel{"embedding"};

// dweight (V, D) = zeros, then g rows (n, D) added at indices, skipping padding_idx (race-free).
inline Kernel<void(const Tensor& g, const Tensor& indices, int64_t padding_idx, const Tensor& dweight)>
    embedding_backward_kernel{"embedding_backward"};

}  // namespace hm
