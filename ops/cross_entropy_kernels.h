// Kernel slots of cross_entropy and nll_loss (ops/cross_entropy.h; see core/dispatch.h).
// Inputs arrive contiguous; outputs are allocated by the op.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/cross_entropy.h"

namespace hm {

// Scores (N, C, d...) or (C) viewed as (outer, C, inner) around the class dim; targets have
// the scores' shape without the class dim.
struct ClassLossArgs {
  int64_t class_dim = 1;  // normalised
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;
  Reduction reduction = Reduction::Mean;
};

// Fused cross entropy: writes out (the 0-d total for Mean/Sum, or per-target losses for None,
// 0 at ignored targets), lse (target-shaped logsumexp over classes, for backward) and count (0-d
// float64: the number of non-ignored targets, Mean's divisor). count stays on the logits'
// device, so a loss on CUDA need not wait for it. Throws on a target outside [0, C) (on CUDA,
// inside a DeferredChecks scope, at the host's next wait: cuda/runtime/deferred_checks.h).
inline Kernel<void(const Tensor& logits, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                   const Tensor& lse, const Tensor& count)>
    cross_entropy_kernel{"cross_entropy"};

// dlogits = (softmax - (1 - eps) onehot - eps / C) * g * scale, 0 rows at ignored targets.
// g is 0-d (Mean/Sum) or target-shaped (None); scale is 1/count for Mean, else 1.
inline Kernel<void(const Tensor& logits, const Tensor& target, const Tensor& lse, const Tensor& g,
                   const ClassLossArgs& args, const Tensor& count, const Tensor& dlogits)>
    cross_entropy_backward_kernel{"cross_entropy_backward"};

// nll: out and count as for cross entropy, from -log_probs[target].
inline Kernel<void(const Tensor& log_probs, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                   const Tensor& count)>
    nll_loss_kernel{"nll_loss"};

// dlog_probs (zero-filled by the kernel) gets -g * scale at each non-ignored target.
inline Kernel<void(const Tensor& target, const Tensor& g, const ClassLossArgs& args, const Tensor& count,
                   const Tensor& dlog_probs)>
    nll_loss_backward_kernel{"nll_loss_backward"};

}  // namespace hm
