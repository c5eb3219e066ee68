#include "harmonic/models/decision_transformer.h"

#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/ops.h"

namespace hm::models {

DecisionTransformer::DecisionTransformer(const DecisionTransformerConfig& c, Generator* gen)
    : nn::Module("DecisionTransformer"), config(c) {
  check(c.state_dim > 0 && c.num_actions > 1 && c.context_length > 0 && c.max_timestep >= 0 && c.n_layer > 0 &&
            c.n_head > 0 && c.n_embd % c.n_head == 0,
        "DecisionTransformer",
        "bad config: state_dim {}, num_actions {}, context_length {}, max_timestep {}, n_layer {}, n_head {}, "
        "n_embd {} (must divide by n_head)",
        c.state_dim, c.num_actions, c.context_length, c.max_timestep, c.n_layer, c.n_head, c.n_embd);
  check(c.head == "linear" || c.head == "fourier", "DecisionTransformer", "head '{}' must be linear or fourier",
        c.head);
  ret_emb = register_module("ret_emb", std::make_shared<nn::Linear>(1, c.n_embd, true, gen));
  state_encoder = register_module("state_encoder", std::make_shared<nn::Linear>(c.state_dim, c.n_embd, true, gen));
  action_embeddings =
      register_module("action_embeddings", std::make_shared<nn::Embedding>(c.num_actions, c.n_embd, -1, gen));
  global_pos_emb =
      register_module("global_pos_emb", std::make_shared<nn::Embedding>(c.max_timestep + 1, c.n_embd, -1, gen));
  pos_emb = register_parameter("pos_emb", zeros({1, 3 * c.context_length, c.n_embd}));
  drop = register_module("drop", std::make_shared<nn::Dropout>(c.dropout, gen));
  nn::TransformerLayerOptions layer{.d_ff = 4 * c.n_embd,
                                    .dropout = c.dropout,
                                    .activation = nn::FFActivation::GELU,  // minGPT (2020): nn.GELU
                                    .pre_norm = true,
                                    .bias = true};
  transformer = register_module("transformer",
                                std::make_shared<nn::TransformerEncoder>(c.n_layer, c.n_embd, c.n_head, layer, gen));
  if (c.head == "linear") {
    linear_head = register_module("head", std::make_shared<nn::Linear>(c.n_embd, c.num_actions, false, gen));
  } else {
    // N may exceed bins / 2 (the paper sweeps 2..32 over 18 actions): the higher frequencies
    // alias on the bin centres but still change the pmf's shape.
    check(c.fourier_frequencies > 0, "DecisionTransformer", "fourier_frequencies {} must be >= 1",
          c.fourier_frequencies);
    fourier = register_module("head", std::make_shared<nn::FourierHead>(c.n_embd, c.num_actions, c.fourier_frequencies,
                                                                        c.fourier_gamma, 100.0, 100.0, gen));
  }
  init_weights(gen);
}

// minGPT's _init_weights over the trunk: N(0, 0.02) linears and embeddings, zero biases,
// default LayerNorms; pos_emb stays zero. The Fourier head keeps its own init (scaled-down
// coefficients) unless head_trunk_init, as in the released code, where the trunk's init runs
// last and reaches the head too.
void DecisionTransformer::init_weights(Generator* gen) {
  for (auto& [name, t] : named_parameters()) {
    if (name.starts_with("head.") && fourier && !config.head_trunk_init) continue;
    if (name == "pos_emb" || name.find("norm") != std::string::npos) continue;
    const bool is_bias = name.ends_with(".bias");
    if (is_bias)
      nn::init::zeros_(t);
    else
      nn::init::normal_(t, 0.0, 0.02, gen);
  }
}

Tensor DecisionTransformer::forward(const Tensor& rtgs, const Tensor& states, const Tensor& actions,
                                    const Tensor& timesteps, const Tensor& mask) {
  const char* fn = "DecisionTransformer::forward";
  HM_CHECK(states.defined() && states.dim() == 3 && states.size(2) == config.state_dim, fn,
           "states must be (B, T, {}), got {}", config.state_dim, states.desc());
  const int64_t B = states.size(0), T = states.size(1), E = config.n_embd;
  HM_CHECK(T >= 1 && T <= config.context_length, fn, "window of {} timesteps must be in [1, {}]", T,
           config.context_length);
  HM_CHECK(rtgs.defined() && rtgs.dim() == 3 && rtgs.size(0) == B && rtgs.size(1) == T && rtgs.size(2) == 1, fn,
           "rtgs must be ({}, {}, 1), got {}", B, T, rtgs.desc());
  HM_CHECK(actions.defined() && actions.dtype() == DType::Int64 && actions.dim() == 2 && actions.size(0) == B &&
               actions.size(1) == T,
           fn, "actions must be int64 ({}, {}), got {}", B, T, actions.desc());
  HM_CHECK(timesteps.defined() && timesteps.dtype() == DType::Int64 && timesteps.dim() == 1 && timesteps.size(0) == B,
           fn, "timesteps must be int64 ({}), got {}", B, timesteps.desc());

  Tensor r = tanh(ret_emb->forward(rtgs));                 // (B, T, E)
  Tensor s = tanh(state_encoder->forward(states));         // (B, T, E)
  Tensor a = tanh(action_embeddings->forward(actions));    // (B, T, E)
  Tensor tokens = reshape(stack({r, s, a}, 2), {B, 3 * T, E});  // R_1 s_1 a_1 R_2 ...
  Tensor global = unsqueeze(global_pos_emb->forward(timesteps), 1);  // (B, 1, E)
  Tensor x = drop->forward(add(add(tokens, global), narrow(pos_emb, 1, 0, 3 * T)));
  nn::AttentionMask causal;
  causal.causal = true;
  if (mask.defined()) {
    HM_CHECK(mask.dim() == 2 && mask.size(0) == B && mask.size(1) == T, fn, "mask must be ({}, {}), got {}", B, T,
             mask.desc());
    Tensor padding = logical_not(mask);                                          // (B, T) bool
    causal.key_padding_mask = reshape(stack({padding, padding, padding}, 2), {B, 3 * T});  // its three tokens
  }
  Tensor h = transformer->forward(x, causal);  // (B, 3T, E), ln_f applied
  Tensor at_states = select(reshape(h, {B, T, 3, E}), 2, 1);  // (B, T, E)
  return fourier ? fourier->forward(at_states) : linear_head->forward(at_states);  // (B, T, A)
}

Tensor DecisionTransformer::loss(const Tensor& scores, const Tensor& actions) const {
  Tensor ce = cross_entropy(scores, actions, {.class_dim = -1});
  return fourier && fourier->gamma > 0 ? add(ce, fourier->regularization_loss()) : ce;
}

Tensor DecisionTransformer::probabilities(const Tensor& scores) { return softmax(scores, -1); }

}  // namespace hm::models
