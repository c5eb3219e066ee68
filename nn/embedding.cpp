#include "harmonic/nn/embedding.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::nn {

Embedding::Embedding(int64_t num, int64_t dim, int64_t padding, Generator* gen)
    : Module(fmt::format("Embedding({}, {})", num, dim)),
      num_embeddings(num),
      embedding_dim(dim),
      padding_idx(padding) {
  check(num > 0 && dim > 0, "Embedding", "sizes must be positive, got num={} dim={}", num, dim);
  check(padding >= -1 && padding < num, "Embedding", "padding_idx {} out of range for {} embeddings", padding, num);
  weight = register_parameter("weight", empty({num, dim}));
  init::normal_(weight, 0.0, 1.0, gen);
  if (padding_idx >= 0) {
    NoGradGuard no_grad;
    Tensor row = weight.detach();
    init::zeros_(narrow(row, 0, padding_idx, 1));
  }
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(weight, indices, padding_idx); }

}  // namespace hm::nn
