// ViT: a vision transformer in the DeiT layout (Touvron et al. 2021, timm's VisionTransformer),
// the model of FourierFormer's image experiment (Nguyen et al., NeurIPS 2022, section 4.2, Table 2): patch embedding
// with a class token and learned positions, `depth` pre-norm encoder blocks (GELU feed-forward
// of width mlp_ratio * dim), a final LayerNorm and a linear head on the class token. The
// self-attention kernel is the dot product (softmax) or FourierFormer's.
//
//   images (B, C, S, S) -> tokens (B, 1 + (S/p)^2, dim) -> blocks -> norm -> head(token 0) (B, K)
//
// DeiT-tiny (the paper's ImageNet model, a GPU configuration) is ViTConfig::deit_tiny().
#pragma once
#include <memory>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/patch_embedding.h"
#include "harmonic/nn/transformer.h"

namespace hm::models {

struct ViTConfig {
  int64_t image_size = 28;  // square images S x S
  int64_t channels = 1;
  int64_t patch = 4;  // S / patch patches a side: 28 / 4 = 7, 49 tokens + the class token
  int64_t num_classes = 10;
  int64_t dim = 64;
  int64_t depth = 4;
  int64_t heads = 4;
  double mlp_ratio = 2.0;  // feed-forward width int(dim * mlp_ratio), as timm
  double dropout = 0.0;    // after the positions, on residual branches and inside the feed-forward
  // Self-attention kernel: dot product (softmax) or FourierFormer's (R init, R per head dim, p).
  nn::AttentionKernel attention = nn::AttentionKernel::DotProduct;
  nn::FourierKernelOptions fourier{.r_init = 1.0};  // the paper's R init for images

  int64_t mlp_dim() const { return static_cast<int64_t>(static_cast<double>(dim) * mlp_ratio); }
  int64_t num_patches() const { return (image_size / patch) * (image_size / patch); }
  // DeiT-tiny (deit_tiny_patch16_224): patch 16, dim 192, depth 12, heads 3, mlp_ratio 4.
  static ViTConfig deit_tiny(int64_t image_size = 224, int64_t channels = 3, int64_t num_classes = 1000);
};

// Trainable parameters of a ViT with this config, by formula (E dim, F mlp_dim, N patches,
// P = C p^2, K classes, L depth): P E + E (patch projection) + E (class token) + (N + 1) E
// (positions) + L (4 E^2 + 4 E (attention) + 2 E F + F + E (feed-forward) + 4 E (two norms)
// + R) + 2 E (final norm) + E K + K (head); R = 0 for softmax, 1 or E / heads for Fourier.
int64_t vit_parameter_count(const ViTConfig& config);

// Children: patch_embed (proj, cls_token, pos_embed), pos_drop, encoder (layers.i, norm), head.
class ViT : public nn::UnaryModule {
 public:
  // gen draws the initial weights and is kept (not owned) for dropout masks; null = the
  // default generator. Throws naming "ViT" for a config that does not fit.
  explicit ViT(const ViTConfig& config, Generator* gen = nullptr);

  // images (B, C, S, S) -> logits (B, num_classes).
  Tensor forward(const Tensor& images) override;
  // images (B, C, S, S) -> the class token after the final norm (B, dim).
  Tensor features(const Tensor& images);
  // Per layer, the self-attention's per-head outputs on that layer's normalised input
  // (MultiheadAttention::forward_heads(norm1(x))): depth tensors (B, heads, 1 + N, dim / heads),
  // for head-redundancy studies (nn::head_redundancy).
  std::vector<Tensor> attention_heads(const Tensor& images);
  // Per layer, the Fourier kernel's mean bandwidth R (over its elements when R is per dim);
  // empty for the dot-product kernel.
  std::vector<double> fourier_r() const;

  ViTConfig config;
  std::shared_ptr<nn::PatchEmbedding> patch_embed;
  std::shared_ptr<nn::Dropout> pos_drop;
  std::shared_ptr<nn::TransformerEncoder> encoder;  // pre-norm: layers.i and the final norm
  std::shared_ptr<nn::Linear> head;

 private:
  Tensor tokens(const Tensor& images);  // (B, C, S, S) -> (B, 1 + N, dim), dropout applied
  void init_weights(Generator* gen);
};

}  // namespace hm::models
