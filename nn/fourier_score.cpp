#include "harmonic/nn/fourier_score.h"

#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/unary.h"

namespace hm::nn {

FourierScore::FourierScore(int64_t head_dim, FourierKernelOptions o)
    : AttentionScore("FourierScore"), head_dim(head_dim), p(o.p), eps(o.eps) {
  check(o.p > 0, "FourierScore", "p must be a positive integer, got {}", o.p);
  check(o.eps >= 0 && std::isfinite(o.eps), "FourierScore", "eps must be finite and >= 0, got {}", o.eps);
  check(!o.log_r || o.r_init > 0, "FourierScore", "a learned log R needs r_init > 0, got {}", o.r_init);
  const Shape shape = o.r_per_dim ? Shape{head_dim} : Shape{};
  if (o.log_r)
    log_R = register_parameter("log_R", full(shape, std::log(o.r_init)));
  else
    R = register_parameter("R", full(shape, o.r_init));
}

FourierScore::FourierScore(int64_t head_dim, double r_init, bool r_per_dim, int64_t p)
    : FourierScore(head_dim, FourierKernelOptions{.r_init = r_init, .r_per_dim = r_per_dim, .p = p}) {}

Tensor FourierScore::bandwidth() const { return log_R.defined() ? exp(log_R) : R; }

Tensor FourierScore::forward(const Tensor& q, const Tensor& k) {
  check(eps == 0.0, "FourierScore",
        "the logits of a kernel with eps = {} are not a softmax's: the fused op takes "
        "no attn_mask or additive_bias with eps",
        eps);
  return fourier_attention_logits_reference(q, k, bandwidth(), p);
}

Tensor FourierScore::attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask,
                            double dropout_p, bool training, Generator* gen) {
  if (mask.attn_mask.defined() || mask.additive_bias.defined())
    return AttentionScore::attend(q, k, v, mask, dropout_p, training, gen);
  return fourier_attention(q, k, v, bandwidth(), p, {.causal = mask.causal, .key_padding_mask = mask.key_padding_mask},
                           dropout_p, training, gen, recompute, eps);
}

}  // namespace hm::nn
