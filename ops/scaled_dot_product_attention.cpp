// scaled_dot_product_attention: argument checks, the saved state (q, k, v, out, lse) and the
// backward closure; the compute is in the sdpa kernel slots (ops/cpu/ on the CPU, cuda/ on the
// device), unless the device's backend answers with the composed form (sdpa_takes_composed: on
// CUDA, cuda/scaled_dot_product_attention_route.h decides). Also the composed twin, the
// specification the fused op is tested against.
#include "harmonic/ops/scaled_dot_product_attention.h"

#include <cmath>
#include <limits>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/attention_dropout.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

constexpr const char* kSdpa = "scaled_dot_product_attention";

void check_args(const Tensor& q, const Tensor& k, const Tensor& v, const FusedAttentionMask& mask, double dropout_p,
                std::optional<double> scale) {
  check(q.defined() && k.defined() && v.defined(), kSdpa, "q, k and v must be defined");
  HM_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, kSdpa,
           "expected q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), got {}, {}, {}", str(q.shape()),
           str(k.shape()), str(v.shape()));
  const int64_t B = q.size(0), H = q.size(1), D = q.size(3), Nk = k.size(2);
  HM_CHECK(k.size(0) == B && v.size(0) == B && k.size(1) == H && v.size(1) == H && k.size(3) == D && v.size(2) == Nk,
           kSdpa, "incompatible q {}, k {}, v {}", str(q.shape()), str(k.shape()), str(v.shape()));
  HM_CHECK(is_floating(q.dtype()) && q.dtype() != DType::BFloat16 && q.dtype() == k.dtype() && k.dtype() == v.dtype(),
           kSdpa, "q, k and v must share one float32/float64 dtype, got {}, {}, {}", q.desc(), k.desc(), v.desc());
  HM_CHECK(q.device() == k.device() && k.device() == v.device(), kSdpa,
           "q, k and v must be on one device, got {}, {}, {}", q.desc(), k.desc(), v.desc());
  if (mask.key_padding_mask.defined())
    HM_CHECK((mask.key_padding_mask.dtype() == DType::Bool && mask.key_padding_mask.shape() == Shape{B, Nk}), kSdpa,
             "key_padding_mask must be bool (B, Nk) = ({}, {}), got {}", B, Nk, mask.key_padding_mask.desc());
  check(dropout_p >= 0.0 && dropout_p < 1.0, kSdpa, "dropout_p must be in [0, 1), got {}", dropout_p);
  check(!scale || std::isfinite(*scale), kSdpa, "scale must be finite, got {}", scale.value_or(0.0));
  if (const Tensor& b = mask.additive_bias; b.defined()) {
    const Shape logits{B, H, q.size(2), Nk};
    HM_CHECK(broadcasts_to(b.shape(), logits), kSdpa, "additive_bias {} does not broadcast to the logits (B, H, Nq, Nk) = {} (q {}, k {})",
             str(b.shape()), str(logits), str(q.shape()), str(k.shape()));
    HM_CHECK(b.dtype() == q.dtype() && b.device() == q.device(), kSdpa,
             "additive_bias {} must have q's dtype and device, q {}", b.desc(), q.desc());
  }
}

// The bias as the kernels take it: contiguous (Bb, Hb, Nq, Nk) with Bb in {1, B}, Hb in {1, H}
// (a shared batch or head dim stays 1, so T5's (1, H, Nq, Nk) is not copied B times).
Tensor kernel_bias(const Tensor& bias, int64_t Nq, int64_t Nk) {
  Tensor b = bias;
  while (b.dim() < 4) b = unsqueeze(b, 0);
  return expand(b, {-1, -1, Nq, Nk}).contiguous();
}
double scale_or_default(std::optional<double> scale, int64_t D) {
  return scale.value_or(1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(D, 1))));
}

}  // namespace

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

Tensor scaled_dot_product_attention(const Tensor& q_in_arg, const Tensor& k_in_arg, const Tensor& v_in_arg,
                                    const FusedAttentionMask& mask, double dropout_p, bool training, Generator* gen,
                                    std::optional<double> scale) {
  const Tensor q_in = autocast_widen(q_in_arg);  // bfloat16 under autocast: computed in float32
  const Tensor k_in = autocast_widen(k_in_arg);
  const Tensor v_in = autocast_widen(v_in_arg);
  check_args(q_in, k_in, v_in, mask, dropout_p, scale);
  // The composed form takes every feature (its dropout draws the same Philox mask: one counter
  // per weight, flattened (b, h, i, j), from the same generator state).
  if (sdpa_takes_composed && sdpa_takes_composed(q_in, k_in, v_in))
    return detail::scaled_dot_product_attention_composed(q_in, k_in, v_in, mask, dropout_p, training, gen, scale);
  const int64_t B = q_in.size(0), H = q_in.size(1), Nq = q_in.size(2), Nk = k_in.size(2), Dv = v_in.size(3);
  const Tensor& bias_in = mask.additive_bias;
  Tensor q, k, v, pad, bias;
  {
    NoGradGuard no_grad;
    q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();
    if (mask.key_padding_mask.defined()) pad = mask.key_padding_mask.to(q.device()).contiguous();
    if (bias_in.defined()) bias = kernel_bias(bias_in, Nq, Nk);  // (Bb, Hb, Nq, Nk)
  }
  SdpaArgs args{.scale = scale_or_default(scale, q.size(3)), .causal = mask.causal};
  reserve_attention_dropout(args, dropout_p, training, gen, B * H * Nq * Nk, q.device());
  Tensor out = Tensor::empty({B, H, Nq, Dv}, q.dtype(), q.device());  // (B, H, Nq, Dv)
  Tensor lse = Tensor::empty({B, H, Nq}, q.dtype(), q.device());      // (B, H, Nq)
  sdpa_kernel(q.device(), q, k, v, pad, bias, args, out, lse);

  std::vector<Tensor> inputs{q_in, k_in, v_in};
  if (bias_in.defined()) inputs.push_back(bias_in);
  const bool rec = autograd::will_record(inputs);
  return autograd::record(
      kSdpa, out, inputs,
      [sq = rec ? Saved(q) : Saved(), sk = rec ? Saved(k) : Saved(), sv = rec ? Saved(v) : Saved(),
       so = rec ? Saved(out) : Saved(), sl = rec ? Saved(lse) : Saved(), sp = rec ? Saved(pad) : Saved(),
       sb = rec ? Saved(bias) : Saved(), bias_shape = bias_in.defined() ? bias_in.shape() : Shape{},
       args](const Tensor& g_in, const NeedsGrad& needs) {
        const Tensor &q = sq.get(), &k = sk.get(), &v = sv.get(), &bias = sb.get();
        Tensor g = g_in.contiguous();
        Tensor dq = Tensor::empty(q.shape(), q.dtype(), q.device());
        Tensor dk = Tensor::empty(k.shape(), k.dtype(), k.device());
        Tensor dv = Tensor::empty(v.shape(), v.dtype(), v.device());
        Tensor dbias;  // (Bb, Hb, Nq, Nk), only when the bias wants it
        if (bias.defined() && needs.size() > 3 && needs[3]) dbias = Tensor::empty(bias.shape(), q.dtype(), q.device());
        sdpa_backward_kernel(q.device(), q, k, v, sp.get(), bias, so.get(), sl.get(), g, args, dq, dk, dv, dbias);
        if (!bias.defined()) return Grads{dq, dk, dv};
        return Grads{dq, dk, dv, dbias.defined() ? sum_to(dbias, bias_shape) : Tensor()};
      });
}

namespace detail {

Tensor scaled_dot_product_attention_composed(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const FusedAttentionMask& mask, double dropout_p, bool training,
                                             Generator* gen, std::optional<double> scale) {
  check_args(q, k, v, mask, dropout_p, scale);
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  const int64_t B = q.size(0), Nq = q.size(2), Nk = k.size(2);
  Tensor x = mul(matmul(q, transpose(k, -2, -1)), scale_or_default(scale, q.size(3)));  // (B, H, Nq, Nk)
  if (mask.additive_bias.defined()) x = add(x, mask.additive_bias);                     // may hold -inf
  const bool masked = mask.causal || mask.key_padding_mask.defined() || mask.additive_bias.defined();
  if (mask.causal) {
    // Made on q's device: no host ops and no copy inside a training step.
    const TensorOptions idx{.dtype = DType::Int64, .device = q.device()};
    Tensor rows = add(reshape(arange(Nq, idx), {Nq, 1}), Nk - Nq);                     // (Nq, 1) int64
    x = masked_fill(x, gt(reshape(arange(Nk, idx), {1, Nk}), rows), kNegInf);           // (Nq, Nk) blocked
  }
  if (mask.key_padding_mask.defined())
    x = masked_fill(x, reshape(mask.key_padding_mask.to(q.device()), {B, 1, 1, Nk}), kNegInf);
  Tensor a;
  if (masked) {
    Tensor dead;  // bool (B, H, Nq, 1): every key blocked; finite logits there, zeros after
    {
      NoGradGuard no_grad;
      dead = eq(amax(x.detach(), {-1}, true), kNegInf);
    }
    a = masked_fill(softmax(masked_fill(x, dead, 0.0), -1), dead, 0.0);
  } else {
    a = softmax(x, -1);
  }
  if (training && dropout_p > 0.0) a = dropout(a, dropout_p, true, gen);
  return matmul(a, v);  // (B, H, Nq, Dv)
}

}  // namespace detail
}  // namespace hm
