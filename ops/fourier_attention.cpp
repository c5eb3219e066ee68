// fourier_attention: argument checks, the saved state and the backward closure; the compute
// is in the fourier_attention kernel slots (ops/cpu/fourier_attention.cpp on the CPU).
#include "harmonic/ops/fourier_attention.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/attention_dropout.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

constexpr const char* kFourierAttention = "fourier_attention";

void check_p(int64_t p) { check(p > 0, kFourierAttention, "p must be a positive integer, got {}", p); }

// R as a contiguous (D) vector of q's dtype.
Tensor r_vector(const Tensor& R, int64_t D) {
  return R.dim() == 0 ? broadcast_to(R, {D}).contiguous() : R.contiguous();
}

}  // namespace

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

Tensor fourier_attention(const Tensor& q_in_arg, const Tensor& k_in_arg, const Tensor& v_in_arg, const Tensor& R_in, int64_t p,
                         const FourierAttentionMask& mask, double dropout_p, bool training, Generator* gen,
                         bool recompute, double eps) {
  const Tensor q_in = autocast_widen(q_in_arg);  // bfloat16 under autocast: computed in float32
  const Tensor k_in = autocast_widen(k_in_arg);
  const Tensor v_in = autocast_widen(v_in_arg);
  check(q_in.defined() && k_in.defined() && v_in.defined() && R_in.defined(), kFourierAttention, "q, k, v and R must be defined");
  check_p(p);
  HM_CHECK(q_in.dim() == 4 && k_in.dim() == 4 && v_in.dim() == 4, kFourierAttention,
           "expected q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), got {}, {}, {}", str(q_in.shape()),
           str(k_in.shape()), str(v_in.shape()));
  const int64_t B = q_in.size(0), H = q_in.size(1), Nq = q_in.size(2), D = q_in.size(3);
  const int64_t Nk = k_in.size(2), Dv = v_in.size(3);
  HM_CHECK(k_in.size(0) == B && v_in.size(0) == B && k_in.size(1) == H && v_in.size(1) == H && k_in.size(3) == D &&
               v_in.size(2) == Nk,
           kFourierAttention, "incompatible q {}, k {}, v {}", str(q_in.shape()), str(k_in.shape()), str(v_in.shape()));
  HM_CHECK(is_floating(q_in.dtype()) && q_in.dtype() == k_in.dtype() && k_in.dtype() == v_in.dtype() &&
               v_in.dtype() == R_in.dtype(),
           kFourierAttention, "q, k, v and R must share one float dtype, got {}, {}, {}, {}", q_in.desc(), k_in.desc(), v_in.desc(),
           R_in.desc());
  HM_CHECK((R_in.dim() == 0 || R_in.shape() == Shape{D}), kFourierAttention, "R must be a scalar or have shape ({},) = (D,), got {}",
           D, str(R_in.shape()));
  HM_CHECK(q_in.device() == k_in.device() && k_in.device() == v_in.device() && v_in.device() == R_in.device(), kFourierAttention,
           "q, k, v and R must be on one device, got {}, {}, {}, {}", q_in.desc(), k_in.desc(), v_in.desc(),
           R_in.desc());
  if (mask.key_padding_mask.defined())
    HM_CHECK((mask.key_padding_mask.dtype() == DType::Bool && mask.key_padding_mask.shape() == Shape{B, Nk}), kFourierAttention,
             "key_padding_mask must be bool (B, Nk) = ({}, {}), got {}", B, Nk, mask.key_padding_mask.desc());
  check(dropout_p >= 0.0 && dropout_p < 1.0, kFourierAttention, "dropout_p must be in [0, 1), got {}", dropout_p);
  check(eps >= 0.0 && std::isfinite(eps), kFourierAttention, "eps must be finite and >= 0, got {}", eps);
  check(!mask.additive_bias.defined(), kFourierAttention, "takes no additive_bias (got {}): only scaled_dot_product_attention does",
        mask.additive_bias.defined() ? mask.additive_bias.desc() : "");

  Tensor q, k, v, R, pad;
  {
    NoGradGuard no_grad;
    q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous(), R = r_vector(R_in, D);
    if (mask.key_padding_mask.defined()) pad = mask.key_padding_mask.to(q.device()).contiguous();
  }
  FourierAttentionArgs args{.p = p, .causal = mask.causal, .eps = eps};
  reserve_attention_dropout(args, dropout_p, training, gen, B * H * Nq * Nk, q.device());
  Tensor out = Tensor::empty({B, H, Nq, Dv}, q.dtype(), q.device());  // (B, H, Nq, Dv)
  Tensor attn, lse;                                                   // (B, H, Nq, Nk), or (B, H, Nq) with recompute
  // CUDA's tiled kernels, where they cover the case, always recompute (O(N) memory).
  const bool tiled = q.device().is_cuda() && fourier_attention_tiled_covers(p, D, Dv, q.dtype());
  if ((recompute || tiled) && p % 2 == 0)
    lse = Tensor::empty({B, H, Nq}, q.dtype(), q.device());
  else
    attn = Tensor::empty({B, H, Nq, Nk}, q.dtype(), q.device());
  fourier_attention_kernel(q.device(), q, k, v, R, pad, args, out, attn, lse);

  const bool rec = autograd::will_record({q_in, k_in, v_in, R_in});
  return autograd::record(
      kFourierAttention, out, {q_in, k_in, v_in, R_in},
      [sq = rec ? Saved(q) : Saved(), sk = rec ? Saved(k) : Saved(), sv = rec ? Saved(v) : Saved(),
       sR = rec ? Saved(R) : Saved(), sa = rec ? Saved(attn) : Saved(), sl = rec ? Saved(lse) : Saved(),
       sp = rec ? Saved(pad) : Saved(), so = rec && lse.defined() ? Saved(out) : Saved(), args,
       r_shape = R_in.shape()](const Tensor& g_in, const NeedsGrad&) {
        const Tensor &q = sq.get(), &k = sk.get(), &v = sv.get(), &R = sR.get();
        Tensor g = g_in.contiguous();
        Tensor dq = Tensor::empty(q.shape(), q.dtype(), q.device());
        Tensor dk = Tensor::empty(k.shape(), k.dtype(), k.device());
        Tensor dv = Tensor::empty(v.shape(), v.dtype(), v.device());
        Tensor dR = Tensor::empty(R.shape(), R.dtype(), R.device());
        fourier_attention_backward_kernel(q.device(), q, k, v, R, sa.get(), sp.get(), sl.get(), so.get(), g, args, dq,
                                          dk, dv, dR);
        return Grads{dq, dk, dv, r_shape.empty() ? sum(dR) : dR};
      });
}

int64_t& fourier_attention_tiled_runs() {
  static int64_t runs = 0;
  return runs;
}

Tensor fourier_attention_logits_reference(const Tensor& q, const Tensor& k, const Tensor& R, int64_t p) {
  constexpr const char* fn = "fourier_attention_logits_reference";
  check(q.defined() && k.defined() && R.defined(), fn, "q, k and R must be defined");
  check(p > 0 && p % 2 == 0, fn,
        "p must be a positive even integer (odd p is a signed kernel without softmax logits: use "
        "fourier_attention), got {}",
        p);
  HM_CHECK(q.dim() == 4 && k.dim() == 4 && q.size(0) == k.size(0) && q.size(1) == k.size(1) && q.size(3) == k.size(3),
           fn, "expected q (B, H, Nq, D) and k (B, H, Nk, D), got {} and {}", q.desc(), k.desc());
  HM_CHECK(is_floating(q.dtype()) && q.dtype() == k.dtype() && k.dtype() == R.dtype(), fn,
           "q, k and R must share one float dtype, got {}, {}, {}", q.desc(), k.desc(), R.desc());
  HM_CHECK((R.dim() == 0 || R.shape() == Shape{q.size(3)}), fn, "R must be a scalar or have shape (D,) = ({},), got {}",
           q.size(3), R.desc());
  Tensor diff = sub(unsqueeze(q, 3), unsqueeze(k, 2));                      // (B, H, Nq, Nk, D)
  Tensor x = mul(diff, R);                                                  // R 0-d or (D) broadcasts over the last dim
  return mul(sum(log(abs(div(sin(x), x))), {-1}), static_cast<double>(p));  // (B, H, Nq, Nk)
}

}  // namespace hm
