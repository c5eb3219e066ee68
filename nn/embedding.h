// Lookup table layer.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

// A (num, dim) table of vectors looked up by int64 indices, initialised N(0, 1); the row
// at padding_idx (-1 = none) starts at zero and receives no gradient.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx = -1, Generator* gen = nullptr);
  Tensor forward(const Tensor& indices);  // int64 (...) -> (..., dim)
  Tensor operator()(const Tensor& indices) { return forward(indices); }

  int64_t num_embeddings, embedding_dim, padding_idx;
  Tensor weight;  // (num, dim)
};

}  // namespace hm::nn
