// Kernel slots of the binary ops (ops/binary.h; see core/dispatch.h): the broadcast forward, the
// backward of pow/maximum/minimum, and the in-place optimizer updates.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/binary_functors.h"

namespace hm {

// out = op(a, b); a and b are views expanded to out's shape (broadcast strides are 0).
inline Kernel<void(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out)> binary_kernel{"binary"};

// Per-element gradients of a broadcast binary op (has_binary_grad_functor(op)): a, b and grad
// are views expanded to the broadcast shape; grad_a and grad_b are contiguous tensors of that
// shape, either undefined when not needed. The op sums them back to the input shapes.
inline Kernel<void(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& grad, const Tensor& grad_a,
                   const Tensor& grad_b)>
    binary_backward_kernel{"binary_backward"};

// x += alpha * y in place (x any strides, y expanded to x's shape, same dtype), and x *= s.
inline Kernel<void(const Tensor& x, const Tensor& y, double alpha)> add_inplace_kernel{"add_"};

inline Kernel<void(const Tensor& x, double s)> mul_inplace_kernel{"mul_"};

}  // namespace hm
