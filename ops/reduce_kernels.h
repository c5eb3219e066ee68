// Kernel slots of the reduction family beyond sum (see core/dispatch.h). Reducing kernels
// see their input as a contiguous 3-d view x (outer, r, inner) and reduce the middle dim;
// the op (ops/reduce_common.h) builds that view without copying whenever the reduced dims
// form one block of a dense tensor, and with one permuting copy otherwise. Outputs are
// freshly allocated contiguous tensors with outer * inner elements.
#pragma once
#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace hm {

enum class ExtremaOp : uint8_t { Max, Min };

// values[o, i] = max/min over k of x[o, k, i] (NaN wins, like PyTorch); indices (int64, or
// undefined when not wanted) receives the first k reaching it. Requires r >= 1.
inline Kernel<void(ExtremaOp op, const Tensor& x, const Tensor& values, const Tensor& indices)> extrema_kernel{
    "reduce_extrema"};

// Two-pass moments over k: mean, and sum of squared deviations / max(r - correction, 0),
// or its square root when take_sqrt (std). mean and out are (outer * inner).
inline Kernel<void(const Tensor& x, int64_t correction, bool take_sqrt, const Tensor& mean, const Tensor& out)>
    moments_kernel{"moments"};

// out = m + log(sum_k exp(x - m)) with m the max over k (finite result for large x; -inf
// for an all -inf slice or r = 0).
inline Kernel<void(const Tensor& x, const Tensor& out)> logsumexp_kernel{"logsumexp"};

// out = (sum_k |x|^p)^(1/p); p = 2 fused as sqrt(sum x^2); p = inf / -inf: max / min |x|;
// p = 0: the count of non-zeros.
inline Kernel<void(const Tensor& x, double p, const Tensor& out)> norm_kernel{"norm"};

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

// out (outer, n, inner) = inclusive prefix sum of x (outer, n, inner) along n; from the
// back when reverse (the gradient of cumsum).
inline Kernel<void(const Tensor& x, bool reverse, const Tensor& out)> cumsum_kernel{"cumsum"};

}  // namespace hm
