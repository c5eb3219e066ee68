// Kernel slots of the fused optimizer updates (see core/dispatch.h): one pass over a
// parameter reads its gradient and state and writes parameter and state in place. Every
// tensor is contiguous with the parameter's shape, dtype (float32/float64) and device; the
// CPU kernels live in optim/cpu_kernels.cpp, a CUDA backend binds `.cuda`.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/optim/optim_functors.h"

namespace hm::optim {

// momentum_buffer is undefined when s.momentum == 0.
inline Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdStep& s)>
    sgd_kernel{"sgd"};

// max_exp_avg_sq is undefined unless s.amsgrad.
inline Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                   const Tensor& max_exp_avg_sq, const AdamStep& s)>
    adam_kernel{"adam"};

}  // namespace hm::optim
