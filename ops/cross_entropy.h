// Classification losses over class indices: cross_entropy and nll_loss.
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/ops/reduction.h"

namespace hm {

struct CrossEntropyOptions {
  int64_t ignore_index = -100;   // targets equal to this contribute nothing (and don't count in the mean)
  double label_smoothing = 0.0;  // PyTorch's definition: (1-eps) one-hot + eps/C uniform
  int64_t class_dim = 1;         // logits (N, C) or (N, C, d1, ...) like PyTorch; class dim configurable
  Reduction reduction = Reduction::Mean;
};

// logits float (N, C, ...) , target int64 (N, ...) class indices.
Tensor cross_entropy(const Tensor& logits, const Tensor& target, const CrossEntropyOptions& opt = {});
// log_probs (N, C, ...), target int64 (N, ...): -log_probs[target]; same options except smoothing.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const CrossEntropyOptions& opt = {});

}  // namespace hm
