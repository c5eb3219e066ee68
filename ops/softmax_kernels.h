// Kernel slots of softmax and log_softmax (ops/softmax.h; see core/dispatch.h). x arrives
// contiguous; outputs are allocated by the op.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out = softmax(x) or log_softmax(x), out same shape as x.
inline Kernel<void(const Tensor& x, int64_t dim, bool log, const Tensor& out)> softmax_kernel{"softmax"};

// dx from the forward output y and the gradient g:
//   softmax:     dx = y (g - sum(g y))        log_softmax: dx = g - exp(y) sum(g)
inline Kernel<void(const Tensor& y, const Tensor& g, int64_t dim, bool log, const Tensor& dx)>
    softmax_backward_kernel{"softmax_backward"};

}  // namespace hm
