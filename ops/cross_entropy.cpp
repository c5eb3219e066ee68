// cross_entropy and nll_loss: each one fused kernel forward and one backward.
// Cross entropy follows PyTorch exactly, including label smoothing with ignore_index:
//   loss_i = (1 - eps) (lse_i - x_i[t_i]) + eps / C sum_c (lse_i - x_i[c]),
// ignored targets contribute 0 and Mean divides by the number of non-ignored targets.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/cross_entropy_kernels.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/cross_entropy.h"

namespace hm {
namespace {

using detail::contiguous_nograd;

using autograd::NeedsGrad;
using autograd::Saved;
using Grads = std::vector<Tensor>;

// Validates scores (N, C, d...) / (C) against target (N, d...) / () and returns the
// kernel arguments with the class dim normalised.
ClassLossArgs class_loss_args(const Tensor& scores, const Tensor& target, const CrossEntropyOptions& opt,
                              std::string_view fn) {
  check(scores.defined() && target.defined(), fn, "undefined tensor");
  HM_CHECK(scores.device() == target.device(), fn, "inputs on different devices: {} and {}", scores.desc(),
           target.desc());
  HM_CHECK(scores.dtype() == DType::Float32 || scores.dtype() == DType::Float64, fn,
           "expected float32 or float64 scores, got {}", scores.desc());
  HM_CHECK(target.dtype() == DType::Int64, fn, "target must hold int64 class indices, got {}", target.desc());
  HM_CHECK(scores.dim() >= 1, fn, "scores need a class dim, got shape {}", str(scores.shape()));
  ClassLossArgs args;
  args.class_dim = scores.dim() == 1 ? 0 : normalize_dim(opt.class_dim, scores.dim(), fn);
  args.ignore_index = opt.ignore_index;
  args.label_smoothing = opt.label_smoothing;
  args.reduction = opt.reduction;
  Shape expected = scores.shape();
  expected.erase(expected.begin() + args.class_dim);
  HM_CHECK(target.shape() == expected, fn, "target shape {} does not match scores {} with class dim {} (expected {})",
           str(target.shape()), str(scores.shape()), args.class_dim, str(expected));
  return args;
}

Tensor loss_output(const Tensor& like, const Shape& per_position, Reduction r) {
  return Tensor::empty(r == Reduction::None ? per_position : Shape{}, like.dtype(), like.device());
}

Tensor target_count(const Tensor& like) { return Tensor::empty({}, DType::Float64, like.device()); }

}  // namespace

Tensor cross_entropy(const Tensor& logits_in_arg, const Tensor& target_in, const CrossEntropyOptions& opt) {
  const Tensor logits_in = autocast_widen(logits_in_arg);  // bfloat16 under autocast: computed in float32
  ClassLossArgs args = class_loss_args(logits_in, target_in, opt, "cross_entropy");
  check(opt.label_smoothing >= 0.0 && opt.label_smoothing <= 1.0, "cross_entropy",
        "label_smoothing must be in [0, 1], got {}", opt.label_smoothing);
  Tensor logits = contiguous_nograd(logits_in), target = contiguous_nograd(target_in);
  Tensor out = loss_output(logits, target.shape(), args.reduction);
  Tensor lse = Tensor::empty(target.shape(), logits.dtype(), logits.device());  // (N, d...)
  Tensor count = target_count(logits);
  cross_entropy_kernel(logits.device(), logits, target, args, out, lse, count);
  bool rec = autograd::will_record({logits_in});
  return autograd::record(
      "cross_entropy", out, {logits_in, target_in},
      [sx = rec ? Saved(logits) : Saved(), st = rec ? Saved(target) : Saved(), sl = rec ? Saved(lse) : Saved(), args,
       count](const Tensor& g_in, const NeedsGrad&) {
        const Tensor& logits = sx.get();
        Tensor g = g_in.contiguous();
        Tensor dx = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
        cross_entropy_backward_kernel(logits.device(), logits, st.get(), sl.get(), g, args, count, dx);
        return Grads{dx, Tensor()};
      });
}

Tensor nll_loss(const Tensor& log_probs_in_arg, const Tensor& target_in, const CrossEntropyOptions& opt) {
  const Tensor log_probs_in = autocast_widen(log_probs_in_arg);  // bfloat16 under autocast: computed in float32
  ClassLossArgs args = class_loss_args(log_probs_in, target_in, opt, "nll_loss");
  check(opt.label_smoothing == 0.0, "nll_loss", "label smoothing is a cross_entropy option, got {}",
        opt.label_smoothing);
  Tensor log_probs = contiguous_nograd(log_probs_in), target = contiguous_nograd(target_in);
  Tensor out = loss_output(log_probs, target.shape(), args.reduction);
  Tensor count = target_count(log_probs);
  nll_loss_kernel(log_probs.device(), log_probs, target, args, out, count);
  bool rec = autograd::will_record({log_probs_in});
  return autograd::record("nll_loss", out, {log_probs_in, target_in},
                          [st = rec ? Saved(target) : Saved(), shape = log_probs.shape(), dtype = log_probs.dtype(),
                           args, count](const Tensor& g_in, const NeedsGrad&) {
                            const Tensor& target = st.get();
                            Tensor g = g_in.contiguous();
                            Tensor d = Tensor::empty(shape, dtype, target.device());
                            nll_loss_backward_kernel(target.device(), target, g, args, count, d);
                            return Grads{d, Tensor()};
                          });
}

}  // namespace hm
