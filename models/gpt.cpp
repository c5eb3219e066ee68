#include "harmonic/models/gpt.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/models/sampling.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::models {

GPTConfig GPTConfig::preset(const std::string& model_type, int64_t vocab_size, int64_t block_size) {
  GPTConfig c;
  c.vocab_size = vocab_size, c.block_size = block_size;
  struct Dims {
    const char* name;
    int64_t n_layer, n_head, n_embd;
  };
  for (const Dims& d : {Dims{"gpt-nano", 3, 3, 48}, Dims{"gpt-micro", 4, 4, 128}, Dims{"gpt-mini", 6, 6, 192},
                        Dims{"gpt2", 12, 12, 768}, Dims{"gpt2-medium", 24, 16, 1024}})
    if (model_type == d.name) {
      c.n_layer = d.n_layer, c.n_head = d.n_head, c.n_embd = d.n_embd;
      return c;
    }
  throw_error("GPTConfig::preset", fmt::format("unknown model_type '{}' (gpt-nano, gpt-micro, gpt-mini, gpt2, "
                                               "gpt2-medium)",
                                               model_type));
}

Tensor sinusoidal_positions(int64_t n, int64_t dim) {
  std::vector<double> table(static_cast<size_t>(n * dim));
  for (int64_t p = 0; p < n; ++p)
    for (int64_t i = 0; i < dim; ++i) {
      double w = std::pow(10000.0, -static_cast<double>(i - i % 2) / static_cast<double>(dim));
      table[p * dim + i] = i % 2 == 0 ? std::sin(p * w) : std::cos(p * w);
    }
  return from_vector(table, {n, dim}).to(DType::Float32);
}

GPT::GPT(const GPTConfig& c, Generator* gen) : nn::Module("GPT"), config(c) {
  check(
      c.vocab_size > 0 && c.block_size > 0 && c.n_layer > 0 && c.n_head > 0 && c.n_embd % c.n_head == 0 &&
          c.n_inner >= 0,
      "GPT",
      "bad config: vocab_size {}, block_size {}, n_layer {}, n_head {}, n_embd {} (must divide by n_head), n_inner {}",
      c.vocab_size, c.block_size, c.n_layer, c.n_head, c.n_embd, c.n_inner);
  wte = register_module("wte", std::make_shared<nn::Embedding>(c.vocab_size, c.n_embd, -1, gen));
  if (c.learned_positions)
    wpe = register_module("wpe", std::make_shared<nn::Embedding>(c.block_size, c.n_embd, -1, gen));
  else
    pos_table = register_buffer("pos_table", sinusoidal_positions(c.block_size, c.n_embd));
  drop = register_module("drop", std::make_shared<nn::Dropout>(c.dropout, gen));
  nn::TransformerLayerOptions layer{.d_ff = c.n_inner > 0 ? c.n_inner : 4 * c.n_embd,
                                    .dropout = c.dropout,
                                    .activation = nn::FFActivation::GELUTanh,
                                    .pre_norm = true,
                                    .bias = c.bias,
                                    .kernel = c.attention,
                                    .fourier = c.fourier};
  transformer = register_module("transformer",
                                std::make_shared<nn::TransformerEncoder>(c.n_layer, c.n_embd, c.n_head, layer, gen));
  if (!c.tie_weights)
    lm_head = register_module("lm_head", std::make_shared<nn::Linear>(c.n_embd, c.vocab_size, false, gen));
  init_weights(gen);
}

// minGPT's init: N(0, 0.02) weights and embeddings, zero biases, default norms, and the
// residual projections (attention out_proj, feed-forward wo) at 0.02 / sqrt(2 n_layer).
void GPT::init_weights(Generator* gen) {
  const double resid_std = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  for (auto& [name, t] : named_parameters()) {
    // Norms keep their defaults; a Fourier score's bandwidth R keeps its init.
    if (name.find("norm") != std::string::npos || name.find(".score.") != std::string::npos) continue;
    if (name.ends_with(".bias"))
      nn::init::zeros_(t);
    else if (name.ends_with("out_proj.weight") || name.ends_with("ff.wo.weight"))
      nn::init::normal_(t, 0.0, resid_std, gen);
    else
      nn::init::normal_(t, 0.0, 0.02, gen);
  }
}

Tensor GPT::embed(const Tensor& tokens, int64_t start) {
  HM_CHECK(tokens.defined() && tokens.dtype() == DType::Int64 && tokens.dim() == 2, "GPT",
           "tokens must be int64 (B, T), got {}", tokens.desc());
  const int64_t T = tokens.size(1);
  check(start + T <= config.block_size, "GPT", "sequence of {} tokens (after {} cached) exceeds block_size {}", T,
        start, config.block_size);
  Tensor pos =
      wpe ? wpe->forward(arange(static_cast<double>(start), static_cast<double>(start + T), 1.0,
                                {.dtype = DType::Int64, .device = tokens.device()}))
          : narrow(pos_table, 0, start, T);              // (T, E)
  return drop->forward(add(wte->forward(tokens), pos));  // (B, T, E)
}

Tensor GPT::hidden_states(const Tensor& tokens, std::vector<nn::KVCache>* caches) {
  const int64_t start = caches && !caches->empty() ? (*caches)[0].length() : 0;
  Tensor x = embed(tokens, start);                             // (B, T, E)
  return transformer->forward(x, {.causal = true}, caches);  // ends with ln_f
}

Tensor GPT::forward(const Tensor& tokens, std::vector<nn::KVCache>* caches) {
  Tensor h = hidden_states(tokens, caches);                        // (B, T, E)
  return lm_head ? lm_head->forward(h) : linear(h, wte->weight);  // (B, T, V)
}

std::vector<Tensor> GPT::head_outputs(const Tensor& tokens) {
  Tensor x = embed(tokens, 0);  // (B, T, E)
  nn::AttentionMask causal;
  causal.causal = true;
  std::vector<Tensor> heads;
  for (int64_t i = 0; i < transformer->layers->size(); ++i) {
    nn::TransformerEncoderLayer& layer = *(*transformer->layers)[i];
    Tensor h = layer.norm1->forward(x);                                // GPT blocks are pre-norm
    heads.push_back(layer.self_attn->forward_heads(h, h, h, causal));  // (B, H, T, D)
    x = layer.forward(x, causal);
  }
  return heads;
}

Tensor GPT::loss(const Tensor& logits, const Tensor& targets) {
  return cross_entropy(logits, targets, {.class_dim = -1});
}

Tensor GPT::generate(const Tensor& prompt, int64_t max_new_tokens, double temperature, int64_t top_k, Generator* gen,
                     bool use_cache) {
  return generate(prompt, max_new_tokens, SamplingOptions{.temperature = temperature, .top_k = top_k}, gen, use_cache);
}

Tensor GPT::generate(const Tensor& prompt, int64_t max_new_tokens, const SamplingOptions& sampling, Generator* gen,
                     bool use_cache) {
  HM_CHECK(prompt.defined() && prompt.dtype() == DType::Int64 && prompt.dim() == 2 && prompt.size(1) > 0,
           "GPT::generate", "prompt must be int64 (B, T0) with T0 > 0, got {}", prompt.desc());
  check(max_new_tokens >= 0, "GPT::generate", "max_new_tokens {} must be >= 0", max_new_tokens);
  NoGradGuard no_grad;
  auto window = [&](const Tensor& seq) {  // the last block_size tokens
    int64_t n = seq.size(1);
    return n <= config.block_size ? seq : narrow(seq, 1, n - config.block_size, config.block_size);
  };
  std::vector<nn::KVCache> caches;
  Tensor idx = prompt;
  Tensor logits = forward(window(idx), use_cache ? &caches : nullptr);  // (B, T, V)
  for (int64_t step = 0; step < max_new_tokens; ++step) {
    Tensor last = select(logits, 1, logits.size(1) - 1);   // (B, V)
    Tensor next = sample_next_token(last, sampling, gen);  // (B, 1)
    idx = cat({idx, next}, 1);
    if (step + 1 == max_new_tokens) break;
    if (use_cache && !caches.empty() && caches[0].length() < config.block_size) {
      logits = forward(next, &caches);
    } else {
      caches.clear();
      logits = forward(window(idx));
    }
  }
  return idx;
}

}  // namespace hm::models
