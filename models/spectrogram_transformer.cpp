#include "harmonic/models/spectrogram_transformer.h"

#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/models/gpt.h"  // sinusoidal_positions
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {
constexpr const char* kModel = "SpectrogramTransformer";
}

SpectrogramTransformer::SpectrogramTransformer(const SpectrogramTransformerConfig& c, Generator* gen)
    : nn::UnaryModule(kModel), config(c) {
  check(c.frames >= 1 && c.bands >= 1 && c.patch_frames >= 1 && c.patch_frames <= c.frames && c.num_classes >= 2,
        kModel,
        "need frames >= patch_frames >= 1, bands >= 1 and num_classes >= 2, got frames {}, patch_frames {}, "
        "bands {}, num_classes {}",
        c.frames, c.patch_frames, c.bands, c.num_classes);
  const int64_t d_ff = static_cast<int64_t>(static_cast<double>(c.dim) * c.mlp_ratio);
  check(c.dim >= 2 && c.dim % 2 == 0 && c.heads >= 1 && c.dim % c.heads == 0 && c.depth >= 1 && d_ff >= 1, kModel,
        "need an even dim divisible by heads, depth >= 1 and dim * mlp_ratio >= 1, got dim {}, heads {}, depth {}, "
        "mlp_ratio {}",
        c.dim, c.heads, c.depth, c.mlp_ratio);
  check(c.dropout >= 0 && c.dropout < 1, kModel, "dropout must be in [0, 1), got {}", c.dropout);
  check(c.head == "linear" || c.head == "fourier", kModel, "head '{}' must be linear or fourier", c.head);
  check(c.head == "linear" || (c.fourier_frequencies >= 1 && c.fourier_gamma >= 0), kModel,
        "need fourier_frequencies >= 1 and fourier_gamma >= 0, got {} and {}", c.fourier_frequencies, c.fourier_gamma);

  proj = register_module("proj", std::make_shared<nn::Linear>(c.patch_frames * c.bands, c.dim, true, gen));
  positions = register_parameter("positions", reshape(sinusoidal_positions(c.tokens(), c.dim), {1, c.tokens(), c.dim}));
  nn::TransformerLayerOptions layer{
      .d_ff = d_ff, .dropout = c.dropout, .activation = nn::FFActivation::GELU, .pre_norm = true};
  encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(c.depth, c.dim, c.heads, layer, gen));
  if (c.head == "fourier")
    fourier_head =
        register_module("head", std::make_shared<nn::FourierHead>(c.dim, c.num_classes, c.fourier_frequencies,
                                                                  c.fourier_gamma, 100.0, 100.0, gen));
  else
    linear_head = register_module("head", std::make_shared<nn::Linear>(c.dim, c.num_classes, true, gen));
}

Tensor SpectrogramTransformer::features(const Tensor& x) {
  const SpectrogramTransformerConfig& c = config;
  HM_CHECK(x.defined() && x.dim() == 3 && x.size(1) == c.frames && x.size(2) == c.bands, kModel,
           "expected a spectrogram (B, {}, {}), got {}", c.frames, c.bands, x.desc());
  const int64_t B = x.size(0), N = c.tokens();
  Tensor tokens = reshape(narrow(x, 1, 0, N * c.patch_frames), {B, N, c.patch_frames * c.bands});
  Tensor h = encoder->forward(add(proj->forward(tokens), positions));  // (B, N, dim), final norm applied
  return mean(h, {1});                                                 // (B, dim)
}

Tensor SpectrogramTransformer::forward(const Tensor& x) {
  Tensor f = features(x);
  return fourier_head ? fourier_head->forward(f) : linear_head->forward(f);
}

Tensor SpectrogramTransformer::loss(const Tensor& scores, const Tensor& labels) const {
  Tensor ce = cross_entropy(scores, labels);
  return fourier_head && fourier_head->gamma > 0 ? add(ce, fourier_head->regularization_loss()) : ce;
}

Tensor SpectrogramTransformer::probabilities(const Tensor& scores) { return softmax(scores, -1); }

}  // namespace hm::models
