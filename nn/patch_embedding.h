// PatchEmbedding (ViT/DeiT): cuts an image into non-overlapping p x p patches and projects
// each flattened patch linearly, the same map as Conv2d(C, E, kernel = stride = p) but done
// as reshape/permute + one GEMM. Optionally prepends a class token and adds learned positions.
#pragma once
#include <memory>

#include "harmonic/core/random.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

struct PatchEmbeddingOptions {
  bool class_token = false;        // prepend a learned (1, 1, E) token ("cls_token")
  bool learned_positions = false;  // add a learned (1, N (+1), E) table ("pos_embed"); fixes the image size
  bool bias = true;                // in the projection
};

class PatchEmbedding : public UnaryModule {
 public:
  PatchEmbedding(int64_t image_size, int64_t patch_size, int64_t in_channels, int64_t embed_dim,
                 PatchEmbeddingOptions options = {}, Generator* gen = nullptr);
  // images (B, C, H, W) -> (B, N (+1), E), N = (H / p) (W / p), patches in row-major order.
  Tensor forward(const Tensor& images) override;

  int64_t image_size, patch_size, in_channels, embed_dim, num_patches;
  PatchEmbeddingOptions options;
  std::shared_ptr<Linear> proj;  // weight (E, C p p): a conv weight (E, C, p, p) flattened
  Tensor cls_token;              // (1, 1, E) or undefined
  Tensor pos_embed;              // (1, N (+1), E) or undefined
};

}  // namespace hm::nn
