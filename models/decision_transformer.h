// Decision Transformer (Chen et al., 2021) in the layout of its Atari code (minGPT): each
// timestep t of a window of K contributes three tokens (return-to-go R_t, state s_t, action
// a_t), embedded as tanh(Linear(1, E)), tanh(state encoder), tanh(Embedding(actions, E)); a
// learned per-window global timestep embedding plus a learned per-token position embedding;
// N causal GPT blocks; a head read only at the state tokens predicting a_t. The head is
// linear or a Fourier head over the action bins (Gillman et al. section 5).
//
// Our environment's states are feature vectors, so the state encoder is Linear + tanh where
// the Atari code has its three-layer convnet over 84x84 frames.
#pragma once
#include <memory>
#include <string>

#include "harmonic/core/random.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/embedding.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/transformer.h"

namespace hm::models {

struct DecisionTransformerConfig {
  int64_t state_dim = 0;
  int64_t num_actions = 18;
  int64_t context_length = 30;  // K timesteps = 3K tokens
  int64_t max_timestep = 2000;  // largest timestep of an episode (global embedding rows - 1)
  int64_t n_layer = 6;
  int64_t n_head = 8;
  int64_t n_embd = 128;
  double dropout = 0.1;
  // Head: "linear" (the original) or "fourier" with `fourier_frequencies` and `fourier_gamma`.
  std::string head = "linear";
  int64_t fourier_frequencies = 8;
  double fourier_gamma = 0.0;
  // The released code's init: its apply(_init_weights) runs after the Fourier head is built, so
  // the head's linear layer gets the trunk's N(0, 0.02) weights and zero bias instead of its own
  // scaled-down init (false, ours: a near-uniform density at the start).
  bool head_trunk_init = false;
};

// Children: ret_emb, state_encoder, action_embeddings, global_pos_emb, drop, transformer
// (layers.i, norm = ln_f), head; parameter pos_emb (1, 3K, E).
class DecisionTransformer : public nn::Module {
 public:
  explicit DecisionTransformer(const DecisionTransformerConfig& config, Generator* gen = nullptr);

  // rtgs float (B, T, 1), states float (B, T, S), actions int64 (B, T), timesteps int64 (B)
  // (the timestep of each window's first real step) -> action scores (B, T, A) read at the
  // state tokens: logits (linear head) or log-pmf (Fourier head), both for cross_entropy.
  // Position t's scores see R_<=t, s_<=t and a_<t only, so actions[:, T-1] may be anything at
  // inference. T <= K. mask (B, T), optional, nonzero = a real step: windows left-padded at an
  // episode's start (data/arcade/dt_windows.h) hide their padding from attention.
  Tensor forward(const Tensor& rtgs, const Tensor& states, const Tensor& actions, const Tensor& timesteps,
                 const Tensor& mask = {});
  // Mean cross-entropy of forward's scores against actions (B, T), plus the Fourier head's
  // regulariser when gamma > 0. 0-d.
  Tensor loss(const Tensor& scores, const Tensor& actions) const;
  // Action probabilities (B, T, A): softmax of forward's scores (for the Fourier head that is
  // its pmf up to the 1e-5 floor of its log).
  static Tensor probabilities(const Tensor& scores);

  bool fourier_head() const { return fourier != nullptr; }

  DecisionTransformerConfig config;
  std::shared_ptr<nn::Linear> ret_emb, state_encoder;
  std::shared_ptr<nn::Embedding> action_embeddings, global_pos_emb;
  Tensor pos_emb;  // (1, 3K, E), zeros at init as in the original
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::TransformerEncoder> transformer;
  std::shared_ptr<nn::Linear> linear_head;    // null with a Fourier head
  std::shared_ptr<nn::FourierHead> fourier;   // null with a linear head

 private:
  void init_weights(Generator* gen);
};

}  // namespace hm::models
