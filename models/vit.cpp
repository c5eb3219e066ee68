#include "harmonic/models/vit.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/nn/fourier_score.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::models {

ViTConfig ViTConfig::deit_tiny(int64_t image_size, int64_t channels, int64_t num_classes) {
  ViTConfig c;
  c.image_size = image_size, c.channels = channels, c.num_classes = num_classes;
  c.patch = 16, c.dim = 192, c.depth = 12, c.heads = 3, c.mlp_ratio = 4.0;
  return c;
}

int64_t vit_parameter_count(const ViTConfig& c) {
  const int64_t E = c.dim, F = c.mlp_dim(), N = c.num_patches(), P = c.channels * c.patch * c.patch;
  const int64_t r = c.attention == nn::AttentionKernel::Fourier ? (c.fourier.r_per_dim ? E / c.heads : 1) : 0;
  const int64_t layer = 4 * E * E + 4 * E + 2 * E * F + F + E + 4 * E + r;
  return P * E + E + E + (N + 1) * E + c.depth * layer + 2 * E + E * c.num_classes + c.num_classes;
}

ViT::ViT(const ViTConfig& c, Generator* gen) : nn::UnaryModule("ViT"), config(c) {
  check(c.patch > 0 && c.image_size > 0 && c.image_size % c.patch == 0 && c.channels > 0 && c.num_classes > 0, "ViT",
        "image_size {} must be a positive multiple of patch {} (channels {}, num_classes {})", c.image_size, c.patch,
        c.channels, c.num_classes);
  check(c.dim > 0 && c.depth > 0 && c.heads > 0 && c.dim % c.heads == 0 && c.mlp_dim() > 0, "ViT",
        "dim {} must be a positive multiple of heads {}, depth {} and int(dim * mlp_ratio {}) positive", c.dim, c.heads,
        c.depth, c.mlp_ratio);
  check(c.dropout >= 0 && c.dropout < 1, "ViT", "dropout must be in [0, 1), got {}", c.dropout);
  patch_embed = register_module("patch_embed",
                                std::make_shared<nn::PatchEmbedding>(
                                    c.image_size, c.patch, c.channels, c.dim,
                                    nn::PatchEmbeddingOptions{.class_token = true, .learned_positions = true}, gen));
  pos_drop = register_module("pos_drop", std::make_shared<nn::Dropout>(c.dropout, gen));
  // timm's Block: pre-norm, LayerNorm eps 1e-6, exact GELU, no dropout on attention probabilities.
  nn::TransformerLayerOptions layer{.d_ff = c.mlp_dim(),
                                    .dropout = c.dropout,
                                    .attention_dropout = 0.0,
                                    .activation = nn::FFActivation::GELU,
                                    .pre_norm = true,
                                    .norm_eps = 1e-6,
                                    .kernel = c.attention,
                                    .fourier = c.fourier};
  encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(c.depth, c.dim, c.heads, layer, gen));
  head = register_module("head", std::make_shared<nn::Linear>(c.dim, c.num_classes, true, gen));
  init_weights(gen);
}

// DeiT/timm's _init_weights: every nn.Linear weight N(0, 0.02) truncated at +-2 (timm's
// absolute bounds), biases zero, LayerNorms (1, 0). The patch projection is DeiT's Conv2d,
// which keeps PyTorch's default init (PatchEmbedding's Linear reproduces it), and the class
// token and positions were drawn N(0, 0.02) by PatchEmbedding. A Fourier score's bandwidth R
// keeps its init (fourier.r_init).
void ViT::init_weights(Generator* gen) {
  for (auto& [name, t] : named_parameters()) {
    if (name.find("norm") != std::string::npos || name.find(".score.") != std::string::npos ||
        name.starts_with("patch_embed."))
      continue;
    if (name.ends_with(".bias"))
      nn::init::zeros_(t);
    else
      nn::init::trunc_normal_(t, 0.0, 0.02, -2.0, 2.0, gen);
  }
}

Tensor ViT::tokens(const Tensor& images) {
  HM_CHECK(images.defined() && images.dim() == 4 && images.size(1) == config.channels &&
               images.size(2) == config.image_size && images.size(3) == config.image_size,
           "ViT", "expected images (B, {}, {}, {}), got {}", config.channels, config.image_size, config.image_size,
           images.desc());
  return pos_drop->forward(patch_embed->forward(images));  // (B, 1 + N, E)
}

Tensor ViT::features(const Tensor& images) {
  return select(encoder->forward(tokens(images)), 1, 0);  // class token (B, E)
}

Tensor ViT::forward(const Tensor& images) { return head->forward(features(images)); }

std::vector<Tensor> ViT::attention_heads(const Tensor& images) {
  std::vector<Tensor> out;
  Tensor x = tokens(images);  // (B, T, E)
  for (int64_t i = 0; i < encoder->layers->size(); ++i) {
    const auto& layer = (*encoder->layers)[i];
    Tensor h = layer->norm1->forward(x);
    out.push_back(layer->self_attn->forward_heads(h, h, h));  // (B, H, T, E / H)
    x = layer->forward(x);
  }
  return out;
}

std::vector<double> ViT::fourier_r() const {
  std::vector<double> out;
  NoGradGuard no_grad;
  for (int64_t i = 0; i < encoder->layers->size(); ++i)
    if (auto s = std::dynamic_pointer_cast<nn::FourierScore>((*encoder->layers)[i]->self_attn->score))
      out.push_back(mean(s->bandwidth().to(DType::Float64)).item<double>());
  return out;
}

}  // namespace hm::models
