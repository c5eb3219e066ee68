// Kernel slots of the unary ops (ops/unary.h; see core/dispatch.h) and their fused backward.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/unary_functors.h"

namespace hm {

// out = op(x). x and out contiguous, same shape; out is bool for LogicalNot, else x's dtype.
inline Kernel<void(UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p)> unary_kernel{"unary"};

// grad_in = op'(x) * grad in one pass. `saved` is x or op(x) as unary_saves(op) says (undefined
// for Nothing); all contiguous with the same shape and float dtype.
inline Kernel<void(UnaryOp op, const Tensor& saved, const Tensor& grad, const Tensor& grad_in, UnaryParams p)>
    unary_backward_kernel{"unary_backward"};

}  // namespace hm
