#include "harmonic/nn/fourier_score.h"

#include "harmonic/core/factories.h"
#include "harmonic/ops/fourier_attention.h"

namespace hm::nn {

FourierScore::FourierScore(int64_t head_dim, double r_init, bool r_per_dim, int64_t p)
    : AttentionScore("FourierScore"), head_dim(head_dim), p(p) {
  check(p > 0, "FourierScore", "p must be a positive integer, got {}", p);
  R = register_parameter("R", r_per_dim ? full({head_dim}, r_init) : full({}, r_init));
}

Tensor FourierScore::forward(const Tensor& q, const Tensor& k) {
  return fourier_attention_logits_reference(q, k, R, p);
}

Tensor FourierScore::attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask,
                            double dropout_p, bool training, Generator* gen) {
  if (mask.attn_mask.defined() || mask.additive_bias.defined())
    return AttentionScore::attend(q, k, v, mask, dropout_p, training, gen);
  return fourier_attention(q, k, v, R, p, {.causal = mask.causal, .key_padding_mask = mask.key_padding_mask}, dropout_p,
                           training, gen, recompute);
}

}  // namespace hm::nn
