// Diagnostics of attention layers.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm::nn {

// Head redundancy (FourierFormer Table 3): the L2 distance between two heads' outputs of one
// example, ||O_h - O_g||_F over (N, Dv), averaged over all head pairs h < g and the batch.
// heads (B, H, N, Dv) (MultiheadAttention::forward_heads) -> 0-d tensor. Larger = less
// redundant heads. Needs H >= 2. Differentiable.
Tensor head_redundancy(const Tensor& heads);

}  // namespace hm::nn
