// Neural-network functions: normalisations, softmax family, losses, embedding, dropout.
#pragma once
#include "core/random.h"
#include "core/tensor.h"

namespace hm {

Tensor softmax(const Tensor& x, int64_t dim = -1);
Tensor log_softmax(const Tensor& x, int64_t dim = -1);

enum class Reduction { Mean, Sum, None };

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
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

// Normalises over the trailing dims given by normalized_shape; weight/bias may be undefined.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
// x / sqrt(mean(x^2) + eps) * weight over the last dim (T5-style: no mean subtraction, no bias).
Tensor rms_norm(const Tensor& x, const Tensor& weight = {}, double eps = 1e-6);

// weight (V, D), indices int64 (...) -> (..., D). Rows at padding_idx get no gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);

// Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator* gen = nullptr);

}  // namespace hm
