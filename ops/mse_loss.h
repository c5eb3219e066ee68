// Mean squared error.
#pragma once
#include "core/tensor.h"
#include "ops/reduction.h"

namespace hm {

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace hm
