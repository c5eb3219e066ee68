#include "harmonic/models/t5.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/constant_cache.h"
#include "harmonic/core/factories.h"
#include "harmonic/models/sampling.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {

nn::TransformerLayerOptions layer_options(const T5Config& c) {
  return {.d_ff = c.d_ff,
          .dropout = c.dropout_rate,
          .activation = c.feed_forward,
          .pre_norm = true,
          .norm = nn::NormKind::RMSNorm,
          .norm_eps = c.layer_norm_epsilon,
          .bias = false,
          .head_dim = c.d_kv,
          .attention_no_scale = true};
}

Tensor padding_mask(const Tensor& attention_mask, const Tensor& ids) {  // bool (B, S), true = pad
  if (!attention_mask.defined()) return {};
  HM_CHECK(attention_mask.shape() == ids.shape(), "T5", "attention_mask {} must match input_ids {}",
           str(attention_mask.shape()), str(ids.shape()));
  return logical_not(attention_mask);
}

}  // namespace

T5Config T5Config::efficient_mini(int64_t vocab_size) {
  T5Config c;
  c.vocab_size = vocab_size;
  c.d_model = 384, c.d_kv = 32, c.d_ff = 1536;
  c.num_layers = 4, c.num_decoder_layers = 4, c.num_heads = 8;
  return c;
}

int64_t t5_relative_position_bucket(int64_t rp, bool bidirectional, int64_t num_buckets, int64_t max_distance) {
  int64_t bucket = 0;
  if (bidirectional) {
    num_buckets /= 2;
    if (rp > 0) bucket += num_buckets;
    rp = std::abs(rp);
  } else {
    rp = -std::min<int64_t>(rp, 0);
  }
  const int64_t max_exact = num_buckets / 2;  // half the buckets are exact offsets
  if (rp < max_exact) return bucket + rp;
  // The other half grows logarithmically up to max_distance (float32, as torch computes it).
  float ratio = std::log(static_cast<float>(rp) / static_cast<float>(max_exact));
  float denom = static_cast<float>(std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)));
  float scaled = ratio / denom * static_cast<float>(num_buckets - max_exact);
  return bucket + std::min(max_exact + static_cast<int64_t>(scaled), num_buckets - 1);
}

T5RelativeBias::T5RelativeBias(int64_t num_buckets, int64_t max_distance, int64_t n_heads, bool bidirectional,
                               Generator* gen)
    : nn::Module("T5RelativeBias"), num_buckets(num_buckets), max_distance(max_distance), bidirectional(bidirectional) {
  relative_attention_bias =
      register_module("relative_attention_bias", std::make_shared<nn::Embedding>(num_buckets, n_heads, -1, gen));
}

Tensor T5RelativeBias::forward(int64_t q_len, int64_t k_len, int64_t q_offset) {
  std::vector<int64_t> buckets(static_cast<size_t>(q_len * k_len));
  for (int64_t i = 0; i < q_len; ++i)
    for (int64_t j = 0; j < k_len; ++j)
      buckets[i * k_len + j] =
          t5_relative_position_bucket(j - (q_offset + i), bidirectional, num_buckets, max_distance);
  Tensor idx = device_constant(from_vector(buckets, {q_len, k_len}), relative_attention_bias->weight.device());
  Tensor values = relative_attention_bias->forward(idx);  // (q, k, H)
  return unsqueeze(permute(values, {2, 0, 1}), 0);        // (1, H, q, k)
}

T5::T5(const T5Config& c, Generator* gen) : nn::Module("T5"), config(c) {
  check(c.vocab_size > 0 && c.d_model > 0 && c.d_kv > 0 && c.num_heads > 0 && c.num_layers > 0, "T5",
        "bad config: vocab_size {}, d_model {}, d_kv {}, num_heads {}, num_layers {}", c.vocab_size, c.d_model, c.d_kv,
        c.num_heads, c.num_layers);
  const int64_t dec_layers = c.num_decoder_layers > 0 ? c.num_decoder_layers : c.num_layers;
  shared = register_module("shared", std::make_shared<nn::Embedding>(c.vocab_size, c.d_model, -1, gen));
  encoder = register_module(
      "encoder", std::make_shared<nn::TransformerEncoder>(c.num_layers, c.d_model, c.num_heads, layer_options(c), gen));
  encoder_bias = register_module(
      "encoder_bias", std::make_shared<T5RelativeBias>(c.relative_attention_num_buckets,
                                                       c.relative_attention_max_distance, c.num_heads, true, gen));
  decoder = register_module(
      "decoder", std::make_shared<nn::TransformerDecoder>(dec_layers, c.d_model, c.num_heads, layer_options(c), gen));
  decoder_bias = register_module(
      "decoder_bias", std::make_shared<T5RelativeBias>(c.relative_attention_num_buckets,
                                                       c.relative_attention_max_distance, c.num_heads, false, gen));
  if (c.cross_attention_bias)
    cross_bias = register_module(
        "cross_bias", std::make_shared<T5RelativeBias>(c.relative_attention_num_buckets,
                                                       c.relative_attention_max_distance, c.num_heads, false, gen));
  drop = register_module("drop", std::make_shared<nn::Dropout>(c.dropout_rate, gen));
  if (!c.tie_word_embeddings)
    lm_head = register_module("lm_head", std::make_shared<nn::Linear>(c.d_model, c.vocab_size, false, gen));
  init_weights(gen);
}

// Hugging Face's T5PreTrainedModel._init_weights with factor 1: embeddings and lm head N(0, 1),
// q N(0, (d_model d_kv)^-0.5), k/v N(0, d_model^-0.5), o N(0, (H d_kv)^-0.5), wi N(0, d_model^-0.5),
// wo N(0, d_ff^-0.5), relative bias N(0, d_model^-0.5), norms 1.
void T5::init_weights(Generator* gen) {
  const double dm = static_cast<double>(config.d_model);
  for (auto& [name, t] : named_parameters()) {
    double std = 0;
    if (name == "shared.weight" || name == "lm_head.weight")
      std = 1.0;
    else if (name.ends_with("q_proj.weight"))
      std = 1.0 / std::sqrt(dm * static_cast<double>(config.d_kv));
    else if (name.ends_with("k_proj.weight") || name.ends_with("v_proj.weight"))
      std = 1.0 / std::sqrt(dm);
    else if (name.ends_with("out_proj.weight"))
      std = 1.0 / std::sqrt(static_cast<double>(config.num_heads * config.d_kv));
    else if (name.ends_with("ff.wo.weight"))
      std = 1.0 / std::sqrt(static_cast<double>(config.d_ff));
    else if (name.find(".ff.wi") != std::string::npos || name.ends_with("relative_attention_bias.weight"))
      std = 1.0 / std::sqrt(dm);
    if (std > 0) nn::init::normal_(t, 0.0, std, gen);
  }
}

Tensor T5::encode(const Tensor& input_ids, const Tensor& attention_mask) {
  HM_CHECK(input_ids.defined() && input_ids.dtype() == DType::Int64 && input_ids.dim() == 2, "T5",
           "input_ids must be int64 (B, S), got {}", input_ids.desc());
  const int64_t S = input_ids.size(1);
  nn::AttentionMask mask{.key_padding_mask = padding_mask(attention_mask, input_ids),
                         .additive_bias = encoder_bias->forward(S, S)};
  Tensor h = encoder->forward(drop->forward(shared->forward(input_ids)), mask);  // (B, S, E)
  return drop->forward(h);
}

Tensor T5::decode(const Tensor& decoder_input_ids, const Tensor& memory, const Tensor& attention_mask,
                  std::vector<nn::DecoderLayerCache>* caches) {
  return lm_logits(decode_hidden(decoder_input_ids, memory, attention_mask, caches));
}

Tensor T5::decode_hidden(const Tensor& decoder_input_ids, const Tensor& memory, const Tensor& attention_mask,
                         std::vector<nn::DecoderLayerCache>* caches) {
  HM_CHECK(decoder_input_ids.defined() && decoder_input_ids.dtype() == DType::Int64 && decoder_input_ids.dim() == 2,
           "T5", "decoder_input_ids must be int64 (B, T), got {}", decoder_input_ids.desc());
  HM_CHECK(memory.defined() && memory.dim() == 3 && memory.size(0) == decoder_input_ids.size(0), "T5",
           "memory must be (B, S, E) with B = {}, got {}", decoder_input_ids.size(0),
           memory.defined() ? str(memory.shape()) : "undefined");
  const int64_t T = decoder_input_ids.size(1);
  const int64_t past = caches && !caches->empty() ? (*caches)[0].self_attn.length() : 0;
  nn::AttentionMask self_mask{.causal = true, .additive_bias = decoder_bias->forward(T, past + T, past)};
  HM_CHECK((!attention_mask.defined() || attention_mask.shape() == Shape{memory.size(0), memory.size(1)}), "T5",
           "attention_mask {} must be (B, S) of memory {}", attention_mask.defined() ? str(attention_mask.shape()) : "",
           str(memory.shape()));
  nn::AttentionMask memory_mask{.key_padding_mask = attention_mask.defined() ? logical_not(attention_mask) : Tensor()};
  const int64_t S = memory.size(1);
  if (cross_bias) memory_mask.additive_bias = cross_bias->forward(T, S, S - 1 + past);
  Tensor h =
      decoder->forward(drop->forward(shared->forward(decoder_input_ids)), memory, self_mask, memory_mask, caches);
  return drop->forward(h);  // (B, T, E)
}

Tensor T5::lm_logits(const Tensor& h) {
  if (lm_head) return lm_head->forward(h);
  return linear(mul(h, 1.0 / std::sqrt(static_cast<double>(config.d_model))), shared->weight);  // (B, T, V)
}

Tensor T5::forward(const Tensor& input_ids, const Tensor& attention_mask, const Tensor& decoder_input_ids) {
  return decode(decoder_input_ids, encode(input_ids, attention_mask), attention_mask);
}

Tensor T5::shift_right(const Tensor& labels) const {
  HM_CHECK(labels.defined() && labels.dtype() == DType::Int64 && labels.dim() == 2, "T5::shift_right",
           "labels must be int64 (B, T), got {}", labels.desc());
  NoGradGuard no_grad;
  Tensor start = full({labels.size(0), 1}, static_cast<double>(config.decoder_start_token_id),
                      {.dtype = DType::Int64, .device = labels.device()});
  Tensor shifted = cat({start, narrow(labels, 1, 0, labels.size(1) - 1)}, 1);
  return masked_fill(shifted, eq(shifted, -100.0), static_cast<double>(config.pad_token_id));
}

Tensor T5::generate(const Tensor& input_ids, const Tensor& attention_mask, int64_t max_new_tokens, double temperature,
                    int64_t top_k, Generator* gen) {
  check(max_new_tokens >= 0, "T5::generate", "max_new_tokens {} must be >= 0", max_new_tokens);
  NoGradGuard no_grad;
  const int64_t B = input_ids.size(0);
  Tensor memory = encode(input_ids, attention_mask);
  std::vector<nn::DecoderLayerCache> caches;
  Tensor out = full({B, 1}, static_cast<double>(config.decoder_start_token_id),
                    {.dtype = DType::Int64, .device = input_ids.device()});
  Tensor next = out;
  std::vector<bool> done(static_cast<size_t>(B), false);
  for (int64_t step = 0; step < max_new_tokens; ++step) {
    Tensor logits = decode(next, memory, attention_mask, &caches);  // (B, 1, V)
    std::vector<int64_t> ids =
        sample_next_token(select(logits, 1, 0), temperature, top_k, gen).to(Device::cpu()).to_vector_as<int64_t>();
    bool all_done = true;
    for (int64_t b = 0; b < B; ++b) {
      if (done[b])
        ids[b] = config.pad_token_id;
      else if (ids[b] == config.eos_token_id)
        done[b] = true;
      all_done = all_done && done[b];
    }
    next = from_vector(ids, {B, 1}).to(input_ids.device());
    out = cat({out, next}, 1);
    if (all_done) break;
  }
  return out;
}

}  // namespace hm::models
