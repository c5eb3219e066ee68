// Kernel slots of the neural-network functions (see core/dispatch.h): softmax family,
// classification and regression losses, layer/RMS norm, embedding and dropout. Inputs
// arrive contiguous unless a slot says otherwise; outputs are allocated by the op.
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/nn_functional.h"

namespace hm {

// -- softmax / log_softmax over `dim` of a contiguous x -------------------------------------
// out = softmax(x) or log_softmax(x), out same shape as x.
inline Kernel<void(const Tensor& x, int64_t dim, bool log, const Tensor& out)> softmax_kernel{"softmax"};
// dx from the forward output y and the gradient g:
//   softmax:     dx = y (g - sum(g y))        log_softmax: dx = g - exp(y) sum(g)
inline Kernel<void(const Tensor& y, const Tensor& g, int64_t dim, bool log, const Tensor& dx)>
    softmax_backward_kernel{"softmax_backward"};

// -- class-index losses ---------------------------------------------------------------------
// Scores (N, C, d...) or (C) viewed as (outer, C, inner) around the class dim; targets have
// the scores' shape without the class dim.
struct ClassLossArgs {
  int64_t class_dim = 1;  // normalised
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;
  Reduction reduction = Reduction::Mean;
};
// Fused cross entropy: writes out (the 0-d total for Mean/Sum, or per-target losses for None,
// 0 at ignored targets) and lse (target-shaped logsumexp over classes, for backward).
// Returns the number of non-ignored targets. Throws on a target outside [0, C).
inline Kernel<int64_t(const Tensor& logits, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                      const Tensor& lse)>
    cross_entropy_kernel{"cross_entropy"};
// dlogits = (softmax - (1 - eps) onehot - eps / C) * g * scale, 0 rows at ignored targets.
// g is 0-d (Mean/Sum) or target-shaped (None); scale is 1/count for Mean, else 1.
inline Kernel<void(const Tensor& logits, const Tensor& target, const Tensor& lse, const Tensor& g,
                   const ClassLossArgs& args, double scale, const Tensor& dlogits)>
    cross_entropy_backward_kernel{"cross_entropy_backward"};
// nll: out as for cross entropy from -log_probs[target]; returns the non-ignored count.
inline Kernel<int64_t(const Tensor& log_probs, const Tensor& target, const ClassLossArgs& args, const Tensor& out)>
    nll_loss_kernel{"nll_loss"};
// dlog_probs (zero-filled by the kernel) gets -g * scale at each non-ignored target.
inline Kernel<void(const Tensor& target, const Tensor& g, const ClassLossArgs& args, double scale,
                   const Tensor& dlog_probs)>
    nll_loss_backward_kernel{"nll_loss_backward"};

// -- mean squared error ---------------------------------------------------------------------
// out = (x - t)^2 elementwise (None), or its sum / mean as a 0-d tensor.
inline Kernel<void(const Tensor& input, const Tensor& target, Reduction reduction, const Tensor& out)>
    mse_loss_kernel{"mse_loss"};
// dinput = 2 (x - t) g scale, g 0-d or input-shaped.
inline Kernel<void(const Tensor& input, const Tensor& target, const Tensor& g, double scale, const Tensor& dinput)>
    mse_loss_backward_kernel{"mse_loss_backward"};

// -- normalisations over the trailing D elements of each of R rows -------------------------
// x (R, D) -> out (R, D); mean, rstd (R) are saved for backward. weight/bias (D) may be undefined.
inline Kernel<void(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                   const Tensor& mean, const Tensor& rstd)>
    layer_norm_kernel{"layer_norm"};
// Fills whichever of dx (R, D), dweight (D), dbias (D) are defined.
inline Kernel<void(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean, const Tensor& rstd,
                   const Tensor& dx, const Tensor& dweight, const Tensor& dbias)>
    layer_norm_backward_kernel{"layer_norm_backward"};
// RMS norm: out = x rstd weight with rstd = 1 / sqrt(mean(x^2) + eps) saved (R).
inline Kernel<void(const Tensor& x, const Tensor& weight, double eps, const Tensor& out, const Tensor& rstd)>
    rms_norm_kernel{"rms_norm"};
inline Kernel<void(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& rstd, const Tensor& dx,
                   const Tensor& dweight)>
    rms_norm_backward_kernel{"rms_norm_backward"};

// -- embedding ------------------------------------------------------------------------------
// out (n, D) = weight (V, D) rows at indices (n); throws on an index outside [0, V).
inline Kernel<void(const Tensor& weight, const Tensor& indices, const Tensor& out)> embedding_kernel{"embedding"};
// dweight (V, D) = zeros, then g rows (n, D) added at indices, skipping padding_idx (race-free).
inline Kernel<void(const Tensor& g, const Tensor& indices, int64_t padding_idx, const Tensor& dweight)>
    embedding_backward_kernel{"embedding_backward"};

// -- dropout --------------------------------------------------------------------------------
// out = x * keep / (1 - p) with keep_i = philox::uniform<float>(seed, offset, i) >= p (see
// dropout_keep in ops/nn_functors.h). Backward is the same kernel applied to the gradient.
inline Kernel<void(const Tensor& x, double p, uint64_t seed, uint64_t offset, const Tensor& out)> dropout_kernel{
    "dropout"};

}  // namespace hm
