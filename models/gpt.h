// GPT: a decoder-only language model in the minGPT/GPT-2 layout: token embedding plus learned
// (or fixed sinusoidal) positions, N pre-norm blocks with causal self-attention and a
// GELU(tanh) feed-forward of width 4 n_embd, a final LayerNorm and an lm head (optionally
// tied to the token embedding). Generation reuses per-layer key/value caches.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/models/sampling.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/embedding.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/transformer.h"

namespace hm::models {

// Field names follow minGPT's config.
struct GPTConfig {
  int64_t vocab_size = 50257;
  int64_t block_size = 1024;  // longest context
  int64_t n_layer = 12;
  int64_t n_head = 12;
  int64_t n_embd = 768;
  int64_t n_inner = 0;            // feed-forward width; 0 = 4 n_embd
  double dropout = 0.1;           // embeddings, residual branches, attention probabilities
  bool learned_positions = true;  // false: fixed sinusoidal table (Vaswani et al.)
  bool tie_weights = false;       // lm head shares the token embedding (GPT-2); minGPT unties
  bool bias = true;               // in the linears
  // Self-attention kernel: dot product (softmax) or FourierFormer's (R init, R per head dim, p).
  nn::AttentionKernel attention = nn::AttentionKernel::DotProduct;
  nn::FourierKernelOptions fourier;

  // minGPT's model_type presets: "gpt-nano" (3, 3, 48), "gpt-micro" (4, 4, 128),
  // "gpt-mini" (6, 6, 192), "gpt2" (12, 12, 768), "gpt2-medium" (24, 16, 1024).
  static GPTConfig preset(const std::string& model_type, int64_t vocab_size, int64_t block_size);
};

// Children: wte, wpe (learned positions; else buffer pos_table), drop, transformer
// (layers.i, norm = ln_f), lm_head (when untied).
class GPT : public nn::Module {
 public:
  explicit GPT(const GPTConfig& config, Generator* gen = nullptr);

  // tokens int64 (B, T) -> logits (B, T, V). With caches (one per layer), the tokens continue
  // the cached sequence: positions start at the cached length.
  Tensor forward(const Tensor& tokens, std::vector<nn::KVCache>* caches = nullptr);
  // The final hidden states, after ln_f and before the lm head: tokens (B, T) -> (B, T, E).
  // For heads other than the lm head (the RNG study's Fourier head reads the last position).
  Tensor hidden_states(const Tensor& tokens, std::vector<nn::KVCache>* caches = nullptr);
  // Mean next-token cross-entropy of logits (B, T, V) against targets int64 (B, T).
  static Tensor loss(const Tensor& logits, const Tensor& targets);

  // Appends max_new_tokens to prompt (B, T0) -> (B, T0 + max_new_tokens); see
  // sample_next_token for temperature/top_k. Runs without gradients; call eval() first to turn
  // dropout off. Beyond block_size the context is cropped to the last block_size tokens and
  // recomputed (as minGPT does); before that each step feeds one token through the caches.
  Tensor generate(const Tensor& prompt, int64_t max_new_tokens, double temperature = 1.0, int64_t top_k = 0,
                  Generator* gen = nullptr, bool use_cache = true);
  // The same with top-p too (SamplingOptions).
  Tensor generate(const Tensor& prompt, int64_t max_new_tokens, const SamplingOptions& sampling,
                  Generator* gen = nullptr, bool use_cache = true);

  // Each layer's per-head self-attention outputs on tokens (B, T) int64, causal: layer l's
  // MultiheadAttention::forward_heads of its normalised input (B, H, T, n_embd / n_head), in
  // the module's current mode (call eval() first for no dropout). For head studies
  // (nn::head_redundancy, FourierFormer Table 3).
  std::vector<Tensor> head_outputs(const Tensor& tokens);

  GPTConfig config;
  std::shared_ptr<nn::Embedding> wte, wpe;  // wpe null with sinusoidal positions
  Tensor pos_table;                         // (block_size, n_embd) sinusoidal buffer, or undefined
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::TransformerEncoder> transformer;
  std::shared_ptr<nn::Linear> lm_head;  // null when tied

 private:
  void init_weights(Generator* gen);
  // dropout(wte(tokens) + positions start..start+T): (B, T, E).
  Tensor embed(const Tensor& tokens, int64_t start);
};

// (n, dim) table: row p is [sin(p w_0), cos(p w_0), sin(p w_1), ...], w_i = 10000^(-2i/dim).
Tensor sinusoidal_positions(int64_t n, int64_t dim);

}  // namespace hm::models
