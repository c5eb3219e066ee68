// The elementwise backward helper the reductions share (extrema ties, logsumexp, norm; see
// core/dispatch.h).
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// Elementwise backward helpers. x is (any shape, strided); r (the reduction's result) and g
// (its gradient) are views expanded to x's shape; out is contiguous with x's shape.
enum class ReduceGradOp : uint8_t {
  LogSumExp,  // g * exp(x - r)
  Norm,       // g * sign(x) |x|^(p-1) / r^(p-1)  (0 where r == 0; p = 2 is g x / r)
  EqMask,     // x == r ? 1 : 0            (ties of amax/amin)
  AbsEqMask,  // |x| == r ? 1 : 0          (ties of the inf-norm)
  AbsEqSign,  // |x| == r ? sign(x) : 0
};

inline Kernel<void(ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g, const Tensor& out)>
    reduce_grad_kernel{"reduce_grad"};

}  // namespace hm
