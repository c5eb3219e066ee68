// Next-token choice for autoregressive generation (GPT, T5): greedy, temperature, top-k.
#pragma once
#include "core/random.h"
#include "core/tensor.h"

namespace hm::models {

// logits (B, V) -> int64 (B, 1). temperature 0 picks the argmax; otherwise samples from
// softmax(logits / temperature) restricted to the top_k largest logits (top_k <= 0: all),
// one uniform draw per row from `gen` (the default generator when null).
Tensor sample_next_token(const Tensor& logits, double temperature = 1.0, int64_t top_k = 0, Generator* gen = nullptr);

}  // namespace hm::models
