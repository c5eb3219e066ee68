// Next-token choice for autoregressive generation (GPT, T5): greedy, temperature, top-k, top-p.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm::models {

struct SamplingOptions {
  double temperature = 1.0;  // 0: greedy (argmax)
  int64_t top_k = 0;         // keep the top_k largest logits; <= 0: all
  double top_p = 1.0;        // nucleus: keep the smallest most-probable set with mass >= top_p; 1: all
};

// logits (B, V) -> int64 (B, 1). temperature 0 picks the argmax; otherwise samples from
// softmax(logits / temperature) restricted first to the top_k largest logits, then to the
// nucleus: the most probable tokens (of that tempered, top-k renormalised distribution) in
// decreasing order until their mass reaches top_p, the token that crosses it included and
// the most probable always kept (Holtzman et al. 2020, as Hugging Face's TopPLogitsWarper).
// One uniform draw per row from `gen` (the default generator when null). Without a nucleus
// (top_p = 1) the draw runs on the logits' device (draw_categorical), so decoding on a GPU reads
// nothing back per token; with one, the rows are sorted on the host.
Tensor sample_next_token(const Tensor& logits, const SamplingOptions& options, Generator* gen = nullptr);
Tensor sample_next_token(const Tensor& logits, double temperature = 1.0, int64_t top_k = 0, Generator* gen = nullptr);

}  // namespace hm::models
