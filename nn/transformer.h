// Transformer blocks: feed-forward, encoder and decoder layers (pre- or post-norm, LayerNorm
// or RMSNorm) and their stacks. The layers are the PyTorch nn.Transformer*Layer computations;
// GPT (models/gpt.h) and T5 (models/t5.h) are built from them.
#pragma once
#include <memory>
#include <vector>

#include "harmonic/nn/attention.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module_list.h"

namespace hm::nn {

enum class NormKind { LayerNorm, RMSNorm };

enum class FFActivation {
  ReLU,
  GELU,      // erf form
  GELUTanh,  // tanh approximation (GPT-2's "gelu_new")
  SiLU,
  GatedGELU,  // T5 v1.1 "gated-gelu": gelu_tanh(wi_0 x) * wi_1 x
  SwiGLU,     // silu(wi_0 x) * wi_1 x
};

bool is_gated(FFActivation a);

// A LayerNorm (with bias) or an RMSNorm over the last dim.
std::shared_ptr<UnaryModule> make_norm(NormKind kind, int64_t dim, double eps);

// wo(dropout(act(wi x))) or, gated, wo(dropout(act(wi_0 x) * wi_1 x)).
class FeedForward : public UnaryModule {
 public:
  FeedForward(int64_t d_model, int64_t d_ff, FFActivation activation = FFActivation::ReLU, double dropout = 0.0,
              bool bias = true, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;  // (..., d_model) -> (..., d_model)

  FFActivation activation;
  std::shared_ptr<Linear> wi, wi_0, wi_1, wo;  // wi when ungated, wi_0/wi_1 when gated
  std::shared_ptr<Dropout> dropout;
};

struct TransformerLayerOptions {
  int64_t d_ff = 2048;
  double dropout = 0.1;           // on residual branches and inside the feed-forward
  double attention_dropout = -1;  // on attention probabilities; -1 = dropout
  FFActivation activation = FFActivation::ReLU;
  bool pre_norm = false;  // x + f(norm(x)) instead of norm(x + f(x)) (PyTorch norm_first)
  NormKind norm = NormKind::LayerNorm;
  double norm_eps = 1e-5;
  bool bias = true;  // in the attention and feed-forward linears
  AttentionKernel kernel = AttentionKernel::DotProduct;
  FourierKernelOptions fourier;     // Fourier kernel only (MultiheadAttentionOptions)
  int64_t head_dim = -1;            // -1 = d_model / n_heads
  bool attention_no_scale = false;  // T5
};

MultiheadAttentionOptions attention_options(const TransformerLayerOptions& o);

// Self-attention then feed-forward. Children: self_attn, norm1, ff, norm2 (+ dropouts).
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t n_heads, TransformerLayerOptions options = {},
                          Generator* gen = nullptr);
  // x (B, T, E) -> (B, T, E). A cache makes it an incremental decoder-only block (GPT).
  Tensor forward(const Tensor& x, const AttentionMask& mask = {}, KVCache* cache = nullptr);

  TransformerLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<FeedForward> ff;
  std::shared_ptr<UnaryModule> norm1, norm2;
  std::shared_ptr<Dropout> dropout1, dropout2;
};

// Per-layer state of an incremental decoder: self-attention grows, cross-attention is static.
struct DecoderLayerCache {
  DecoderLayerCache() { cross_attn.is_static = true; }
  KVCache self_attn;
  KVCache cross_attn;
};

// Causal-or-not self-attention, cross-attention to `memory`, feed-forward.
// Children: self_attn, norm1, cross_attn, norm2, ff, norm3 (+ dropouts).
class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer(int64_t d_model, int64_t n_heads, TransformerLayerOptions options = {},
                          Generator* gen = nullptr);
  // x (B, T, E), memory (B, S, E) -> (B, T, E).
  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& self_mask = {},
                 const AttentionMask& memory_mask = {}, DecoderLayerCache* cache = nullptr);

  TransformerLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn, cross_attn;
  std::shared_ptr<FeedForward> ff;
  std::shared_ptr<UnaryModule> norm1, norm2, norm3;
  std::shared_ptr<Dropout> dropout1, dropout2, dropout3;
};

// N encoder layers ("layers.i") and, for pre-norm stacks, a final norm ("norm").
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t n_heads, TransformerLayerOptions options = {},
                     Generator* gen = nullptr);
  // x (B, T, E) -> (B, T, E); `caches` (one per layer, resized as needed) for incremental decoding.
  Tensor forward(const Tensor& x, const AttentionMask& mask = {}, std::vector<KVCache>* caches = nullptr);
  std::shared_ptr<ModuleList<TransformerEncoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;  // null for post-norm stacks
};

class TransformerDecoder : public Module {
 public:
  TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t n_heads, TransformerLayerOptions options = {},
                     Generator* gen = nullptr);
  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& self_mask = {},
                 const AttentionMask& memory_mask = {}, std::vector<DecoderLayerCache>* caches = nullptr);
  std::shared_ptr<ModuleList<TransformerDecoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;  // null for post-norm stacks
};

}  // namespace hm::nn
