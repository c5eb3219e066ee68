// Mean squared error.
#pragma once
#include "harmonic/core/tensor.h"
#include "harmonic/ops/reduction.h"

namespace hm {

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace hm
