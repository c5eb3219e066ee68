#include "harmonic/nn/patch_embedding.h"

#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::nn {

PatchEmbedding::PatchEmbedding(int64_t image_size, int64_t patch_size, int64_t in_channels, int64_t embed_dim,
                               PatchEmbeddingOptions options, Generator* gen)
    : UnaryModule("PatchEmbedding"),
      image_size(image_size),
      patch_size(patch_size),
      in_channels(in_channels),
      embed_dim(embed_dim),
      options(options) {
  check(patch_size > 0 && image_size > 0 && image_size % patch_size == 0 && in_channels > 0 && embed_dim > 0,
        "PatchEmbedding", "image_size {} must be a positive multiple of patch_size {} (channels {}, embed_dim {})",
        image_size, patch_size, in_channels, embed_dim);
  num_patches = (image_size / patch_size) * (image_size / patch_size);
  // Linear's default init equals Conv2d's: kaiming_uniform(a = sqrt(5)) with fan_in = C p p.
  proj = register_module("proj",
                         std::make_shared<Linear>(in_channels * patch_size * patch_size, embed_dim, options.bias, gen));
  // timm's ViT init for the token and the positions: N(0, 0.02) truncated at +-2.
  if (options.class_token)
    cls_token = register_parameter("cls_token", trunc_normal_(zeros({1, 1, embed_dim}), 0.0, 0.02, -2.0, 2.0, gen));
  if (options.learned_positions) {
    int64_t n = num_patches + (options.class_token ? 1 : 0);
    pos_embed = register_parameter("pos_embed", trunc_normal_(zeros({1, n, embed_dim}), 0.0, 0.02, -2.0, 2.0, gen));
  }
}

Tensor PatchEmbedding::forward(const Tensor& images) {
  const int64_t p = patch_size;
  HM_CHECK(images.defined() && images.dim() == 4 && images.size(1) == in_channels && images.size(2) % p == 0 &&
               images.size(3) % p == 0,
           "PatchEmbedding", "expected images (B, {}, H, W) with H, W multiples of {}, got {}", in_channels, p,
           images.desc());
  HM_CHECK(!pos_embed.defined() || (images.size(2) == image_size && images.size(3) == image_size), "PatchEmbedding",
           "learned positions need {}x{} images, got {}", image_size, image_size, str(images.shape()));
  const int64_t B = images.size(0), C = in_channels, gh = images.size(2) / p, gw = images.size(3) / p;
  Tensor x = reshape(images, {B, C, gh, p, gw, p});
  x = reshape(permute(x, {0, 2, 4, 1, 3, 5}), {B, gh * gw, C * p * p});  // (B, N, C p p)
  x = proj->forward(x);                                                  // (B, N, E)
  if (cls_token.defined()) x = cat({expand(cls_token, {B, 1, embed_dim}), x}, 1);
  if (pos_embed.defined()) x = add(x, pos_embed);
  return x;
}

}  // namespace hm::nn
