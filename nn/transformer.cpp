#include "harmonic/nn/transformer.h"

#include "harmonic/nn/normalization.h"
#include "harmonic/ops/ops.h"

namespace hm::nn {
namespace {

Tensor activate(FFActivation a, const Tensor& x) {
  switch (a) {
    case FFActivation::ReLU:
      return relu(x);
    case FFActivation::GELU:
      return gelu(x);
    case FFActivation::GELUTanh:
    case FFActivation::GatedGELU:
      return gelu(x, GeluApprox::Tanh);
    case FFActivation::SiLU:
    case FFActivation::SwiGLU:
      return silu(x);
  }
  throw_error("FeedForward", fmt::format("unknown activation {}", static_cast<int>(a)));
}

// The residual add x + r and the norm after it, in one pass (add_layer_norm / add_rms_norm) for
// the norms of make_norm, the composition for any other. Returns {x + r, norm(x + r)}.
std::pair<Tensor, Tensor> residual_norm(const Tensor& x, const Tensor& r, UnaryModule& norm) {
  if (auto* ln = dynamic_cast<LayerNorm*>(&norm))
    return add_layer_norm(x, r, ln->normalized_shape, ln->weight, ln->bias, ln->eps);
  if (auto* rms = dynamic_cast<RMSNorm*>(&norm)) return add_rms_norm(x, r, rms->weight, rms->eps);
  Tensor y = add(x, r);
  return {y, norm.forward(y)};
}

double attention_dropout(const TransformerLayerOptions& o) {
  return o.attention_dropout >= 0 ? o.attention_dropout : o.dropout;
}

}  // namespace

bool is_gated(FFActivation a) { return a == FFActivation::GatedGELU || a == FFActivation::SwiGLU; }

std::shared_ptr<UnaryModule> make_norm(NormKind kind, int64_t dim, double eps) {
  if (kind == NormKind::RMSNorm) return std::make_shared<RMSNorm>(dim, eps);
  return std::make_shared<LayerNorm>(Shape{dim}, eps);
}

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, FFActivation activation, double dropout_p, bool bias,
                         Generator* gen)
    : UnaryModule("FeedForward"), activation(activation) {
  check(d_model > 0 && d_ff > 0, "FeedForward", "d_model {} and d_ff {} must be positive", d_model, d_ff);
  if (is_gated(activation)) {
    register_module("wi_0", wi_0, std::make_shared<Linear>(d_model, d_ff, bias, gen));
    register_module("wi_1", wi_1, std::make_shared<Linear>(d_model, d_ff, bias, gen));
  } else {
    register_module("wi", wi, std::make_shared<Linear>(d_model, d_ff, bias, gen));
  }
  register_module("wo", wo, std::make_shared<Linear>(d_ff, d_model, bias, gen));
  dropout = register_module("dropout", std::make_shared<Dropout>(dropout_p, gen));
}

Tensor FeedForward::forward(const Tensor& x) {
  Tensor h = is_gated(activation) ? mul(activate(activation, wi_0->forward(x)), wi_1->forward(x))
                                  : activate(activation, wi->forward(x));  // (..., d_ff)
  return wo->forward(dropout->forward(h));
}

MultiheadAttentionOptions attention_options(const TransformerLayerOptions& o) {
  MultiheadAttentionOptions a;
  a.dropout = attention_dropout(o);
  a.bias = o.bias;
  a.head_dim = o.head_dim;
  a.kernel = o.kernel;
  a.fourier = o.fourier;
  a.no_scale = o.attention_no_scale;
  return a;
}

// -- encoder layer ------------------------------------------------------------------------------

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t n_heads, TransformerLayerOptions o,
                                                 Generator* gen)
    : Module("TransformerEncoderLayer"), options(o) {
  self_attn =
      register_module("self_attn", std::make_shared<MultiheadAttention>(d_model, n_heads, attention_options(o), gen));
  norm1 = register_module("norm1", make_norm(o.norm, d_model, o.norm_eps));
  ff = register_module("ff", std::make_shared<FeedForward>(d_model, o.d_ff, o.activation, o.dropout, o.bias, gen));
  norm2 = register_module("norm2", make_norm(o.norm, d_model, o.norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(o.dropout, gen));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(o.dropout, gen));
}

Tensor TransformerEncoderLayer::forward(const Tensor& x, const AttentionMask& mask, KVCache* cache) {
  if (options.pre_norm) {
    Tensor h = norm1->forward(x);
    auto [y, h2] = residual_norm(x, dropout1->forward(self_attn->forward(h, h, h, mask, cache)), *norm2);
    return dropout2->forward_add(y, ff->forward(h2));
  }
  Tensor y = norm1->forward(dropout1->forward_add(x, self_attn->forward(x, x, x, mask, cache)));
  return norm2->forward(dropout2->forward_add(y, ff->forward(y)));
}

// -- decoder layer ------------------------------------------------------------------------------

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t n_heads, TransformerLayerOptions o,
                                                 Generator* gen)
    : Module("TransformerDecoderLayer"), options(o) {
  self_attn =
      register_module("self_attn", std::make_shared<MultiheadAttention>(d_model, n_heads, attention_options(o), gen));
  norm1 = register_module("norm1", make_norm(o.norm, d_model, o.norm_eps));
  cross_attn =
      register_module("cross_attn", std::make_shared<MultiheadAttention>(d_model, n_heads, attention_options(o), gen));
  norm2 = register_module("norm2", make_norm(o.norm, d_model, o.norm_eps));
  ff = register_module("ff", std::make_shared<FeedForward>(d_model, o.d_ff, o.activation, o.dropout, o.bias, gen));
  norm3 = register_module("norm3", make_norm(o.norm, d_model, o.norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(o.dropout, gen));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(o.dropout, gen));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(o.dropout, gen));
}

Tensor TransformerDecoderLayer::forward(const Tensor& x, const Tensor& memory, const AttentionMask& self_mask,
                                        const AttentionMask& memory_mask, DecoderLayerCache* cache) {
  KVCache* self_cache = cache ? &cache->self_attn : nullptr;
  KVCache* cross_cache = cache ? &cache->cross_attn : nullptr;
  if (cross_cache) cross_cache->is_static = true;
  if (options.pre_norm) {
    Tensor h = norm1->forward(x);
    auto [y, h2] = residual_norm(x, dropout1->forward(self_attn->forward(h, h, h, self_mask, self_cache)), *norm2);
    auto [y2, h3] =
        residual_norm(y, dropout2->forward(cross_attn->forward(h2, memory, memory, memory_mask, cross_cache)), *norm3);
    return dropout3->forward_add(y2, ff->forward(h3));
  }
  Tensor y = norm1->forward(dropout1->forward_add(x, self_attn->forward(x, x, x, self_mask, self_cache)));
  y = norm2->forward(dropout2->forward_add(y, cross_attn->forward(y, memory, memory, memory_mask, cross_cache)));
  return norm3->forward(dropout3->forward_add(y, ff->forward(y)));
}

// -- stacks -------------------------------------------------------------------------------------

TransformerEncoder::TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t n_heads,
                                       TransformerLayerOptions options, Generator* gen)
    : Module("TransformerEncoder") {
  check(num_layers > 0, "TransformerEncoder", "num_layers {} must be positive", num_layers);
  layers = register_module("layers", std::make_shared<ModuleList<TransformerEncoderLayer>>());
  for (int64_t i = 0; i < num_layers; ++i)
    layers->push_back(std::make_shared<TransformerEncoderLayer>(d_model, n_heads, options, gen));
  if (options.pre_norm) norm = register_module("norm", make_norm(options.norm, d_model, options.norm_eps));
}

Tensor TransformerEncoder::forward(const Tensor& x, const AttentionMask& mask, std::vector<KVCache>* caches) {
  if (caches) caches->resize(static_cast<size_t>(layers->size()));
  Tensor h = x;  // (B, T, E)
  for (int64_t i = 0; i < layers->size(); ++i)
    h = (*layers)[i]->forward(h, mask, caches ? &(*caches)[static_cast<size_t>(i)] : nullptr);
  return norm ? norm->forward(h) : h;
}

TransformerDecoder::TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t n_heads,
                                       TransformerLayerOptions options, Generator* gen)
    : Module("TransformerDecoder") {
  check(num_layers > 0, "TransformerDecoder", "num_layers {} must be positive", num_layers);
  layers = register_module("layers", std::make_shared<ModuleList<TransformerDecoderLayer>>());
  for (int64_t i = 0; i < num_layers; ++i)
    layers->push_back(std::make_shared<TransformerDecoderLayer>(d_model, n_heads, options, gen));
  if (options.pre_norm) norm = register_module("norm", make_norm(options.norm, d_model, options.norm_eps));
}

Tensor TransformerDecoder::forward(const Tensor& x, const Tensor& memory, const AttentionMask& self_mask,
                                   const AttentionMask& memory_mask, std::vector<DecoderLayerCache>* caches) {
  if (caches) caches->resize(static_cast<size_t>(layers->size()));
  Tensor h = x;  // (B, T, E)
  for (int64_t i = 0; i < layers->size(); ++i)
    h = (*layers)[i]->forward(h, memory, self_mask, memory_mask, caches ? &(*caches)[static_cast<size_t>(i)] : nullptr);
  return norm ? norm->forward(h) : h;
}

}  // namespace hm::nn
