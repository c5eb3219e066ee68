// T5 encoder-decoder (Raffel et al.; the t5-efficient checkpoints' layout): pre-norm blocks
// with RMSNorm ("T5 LayerNorm": no mean subtraction, no bias), bias-free linears, attention
// without 1/sqrt(d) scaling, bucketed relative position biases computed once per stack (the
// first layer's table, shared by every layer; bidirectional in the encoder, causal in the
// decoder), ReLU or gated-GELU feed-forward, and an lm head tied to the shared embedding
// (with the d_model^-0.5 rescale) or untied.
#pragma once
#include <memory>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/embedding.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/transformer.h"

namespace hm::models {

// Field names follow Hugging Face's T5Config.
struct T5Config {
  int64_t vocab_size = 32128;
  int64_t d_model = 512;
  int64_t d_kv = 64;  // per-head width; n_heads * d_kv need not equal d_model
  int64_t d_ff = 2048;
  int64_t num_layers = 6;
  int64_t num_decoder_layers = -1;  // -1 = num_layers
  int64_t num_heads = 8;
  int64_t relative_attention_num_buckets = 32;
  int64_t relative_attention_max_distance = 128;
  double dropout_rate = 0.1;
  double layer_norm_epsilon = 1e-6;
  nn::FFActivation feed_forward = nn::FFActivation::ReLU;  // or GatedGELU (T5 v1.1)
  bool tie_word_embeddings = true;
  int64_t pad_token_id = 0;
  int64_t eos_token_id = 1;
  int64_t decoder_start_token_id = 0;
  // Not in T5: a relative position bias in cross-attention too (its own causal bucket table),
  // decoder step t at position S - 1 + t of the encoder's S tokens, so a step can find the
  // encoder token a fixed lag back (a season) by position rather than by content alone.
  bool cross_attention_bias = false;

  // d_model 384, 4 + 4 layers, 8 heads, d_kv 32, d_ff 1536, ReLU, tied (the project's
  // t5-efficient-mini sizing; the released checkpoint's config has d_kv 64).
  static T5Config efficient_mini(int64_t vocab_size);
};

// Hugging Face's _relative_position_bucket for one relative position (key - query),
// evaluated with the same float32 log so the buckets agree exactly.
int64_t t5_relative_position_bucket(int64_t relative_position, bool bidirectional, int64_t num_buckets = 32,
                                    int64_t max_distance = 128);

// The learned (num_buckets, n_heads) bias table of a stack's first layer.
class T5RelativeBias : public nn::Module {
 public:
  T5RelativeBias(int64_t num_buckets, int64_t max_distance, int64_t n_heads, bool bidirectional,
                 Generator* gen = nullptr);
  // (1, H, q_len, k_len) for queries at positions q_offset + [0, q_len) and keys [0, k_len).
  Tensor forward(int64_t q_len, int64_t k_len, int64_t q_offset = 0);

  int64_t num_buckets, max_distance;
  bool bidirectional;
  std::shared_ptr<nn::Embedding> relative_attention_bias;  // weight (num_buckets, H)
};

// Children: shared, encoder (layers.i, norm), encoder_bias, decoder (layers.i, norm),
// decoder_bias, cross_bias (cross_attention_bias only), drop, lm_head (untied only).
class T5 : public nn::Module {
 public:
  explicit T5(const T5Config& config, Generator* gen = nullptr);

  // input_ids int64 (B, S), attention_mask (B, S) nonzero = token (undefined = all) -> (B, S, E).
  Tensor encode(const Tensor& input_ids, const Tensor& attention_mask = {});
  // decoder_input_ids (B, T) over memory (B, S, E) -> logits (B, T, V). With caches, the ids
  // continue the cached prefix (relative positions are offset by the cached length).
  Tensor decode(const Tensor& decoder_input_ids, const Tensor& memory, const Tensor& attention_mask = {},
                std::vector<nn::DecoderLayerCache>* caches = nullptr);
  // decode without the lm head: the decoder's final hidden states (B, T, E), for other heads
  // (models/chronos: a Fourier head over value bins).
  Tensor decode_hidden(const Tensor& decoder_input_ids, const Tensor& memory, const Tensor& attention_mask = {},
                       std::vector<nn::DecoderLayerCache>* caches = nullptr);
  // The lm head: hidden (B, T, E) -> logits (B, T, V) (tied: the shared embedding, d_model^-0.5 rescaled).
  Tensor lm_logits(const Tensor& hidden);
  Tensor forward(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& decoder_input_ids);

  // Labels (B, T) -> decoder inputs: decoder_start then labels[:, :-1], with -100 replaced by pad.
  Tensor shift_right(const Tensor& labels) const;

  // Greedy (temperature 0) or sampled decoding with caches: (B, 1 + steps) starting with
  // decoder_start_token_id. A row that emitted eos continues with pad; decoding stops
  // early once every row has. Runs without gradients; call eval() first.
  Tensor generate(const Tensor& input_ids, const Tensor& attention_mask, int64_t max_new_tokens,
                  double temperature = 0.0, int64_t top_k = 0, Generator* gen = nullptr);

  T5Config config;
  std::shared_ptr<nn::Embedding> shared;
  std::shared_ptr<nn::TransformerEncoder> encoder;
  std::shared_ptr<nn::TransformerDecoder> decoder;
  std::shared_ptr<T5RelativeBias> encoder_bias, decoder_bias;
  std::shared_ptr<T5RelativeBias> cross_bias;  // null unless config.cross_attention_bias
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::Linear> lm_head;  // null when tied

 private:
  void init_weights(Generator* gen);
};

}  // namespace hm::models
