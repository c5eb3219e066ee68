// Kernel slots of mse_loss (ops/mse_loss.h; see core/dispatch.h). Inputs arrive contiguous.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/reduction.h"

namespace hm {

// out = (x - t)^2 elementwise (None), or its sum / mean as a 0-d tensor.
inline Kernel<void(const Tensor& input, const Tensor& target, Reduction reduction, const Tensor& out)>
    mse_loss_kernel{"mse_loss"};

// dinput = 2 (x - t) g scale, g 0-d or input-shaped.
inline Kernel<void(const Tensor& input, const Tensor& target, const Tensor& g, double scale, const Tensor& dinput)>
    mse_loss_backward_kernel{"mse_loss_backward"};

}  // namespace hm
