// Gradient clipping with torch.nn.utils semantics. Parameters without a gradient are skipped.
#pragma once
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::optim {

// Scales all gradients together so their total norm (the p-norm of the per-tensor p-norms;
// p = inf: the largest |g|) is at most max_norm: every gradient is multiplied by
// min(1, max_norm / (total + 1e-6)) (a NaN total makes every gradient NaN, as in PyTorch).
// Returns the total norm before clipping (0 without gradients). With error_if_nonfinite a
// NaN/Inf total throws instead of scaling.
double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// The same clipping, with the total norm left where the gradients are: a 0-d float64 tensor
// (undefined without gradients), the scale computed on that device, so the host does not wait
// for the backward to finish (the trainer reads the norm where it logs). The same update, bit for bit.
Tensor clip_grad_norm_on_device_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0);

// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace hm::optim
