// Kernel slots of the elementwise family beyond add/sub/mul/div (see core/dispatch.h): the
// unary ops and their fused backward, the backward of pow/maximum/minimum, where (which also
// serves masked_fill) and the in-place optimizer updates.
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/binary_functors.h"
#include "ops/unary_functors.h"

namespace hm {

// out = op(x). x and out contiguous, same shape; out is bool for LogicalNot, else x's dtype.
inline Kernel<void(UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p)> unary_kernel{"unary"};

// grad_in = op'(x) * grad in one pass. `saved` is x or op(x) as unary_saves(op) says (undefined
// for Nothing); all contiguous with the same shape and float dtype.
inline Kernel<void(UnaryOp op, const Tensor& saved, const Tensor& grad, const Tensor& grad_in, UnaryParams p)>
    unary_backward_kernel{"unary_backward"};

// Per-element gradients of a broadcast binary op (has_binary_grad_functor(op)): a, b and grad
// are views expanded to the broadcast shape; grad_a and grad_b are contiguous tensors of that
// shape, either undefined when not needed. The op sums them back to the input shapes.
inline Kernel<void(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& grad, const Tensor& grad_a,
                   const Tensor& grad_b)>
    binary_backward_kernel{"binary_backward"};

// out = cond ? a : b. cond (bool), a and b are views expanded to out's shape; out contiguous.
inline Kernel<void(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out)> where_kernel{"where"};

// x += alpha * y in place (x any strides, y expanded to x's shape, same dtype), and x *= s.
inline Kernel<void(const Tensor& x, const Tensor& y, double alpha)> add_inplace_kernel{"add_"};
inline Kernel<void(const Tensor& x, double s)> mul_inplace_kernel{"mul_"};

}  // namespace hm
