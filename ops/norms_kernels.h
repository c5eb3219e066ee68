// Kernel slots of logsumexp and norm (ops/norms.h; see core/dispatch.h).
// Reducing kernels see their input as a contiguous 3-d view x (outer, r, inner) and reduce the
// middle dim; the op (ops/reduce_common.h) builds that view without copying whenever the
// reduced dims form one block of a dense tensor, and with one permuting copy otherwise. Outputs
// are freshly allocated contiguous tensors with outer * inner elements.
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out = m + log(sum_k exp(x - m)) with m the max over k (finite result for large x; -inf
// for an all -inf slice or r = 0).
inline Kernel<void(const Tensor& x, const Tensor& out)> logsumexp_kernel{"logsumexp"};

// out = (sum_k |x|^p)^(1/p); p = 2 fused as sqrt(sum x^2); p = inf / -inf: max / min |x|;
// p = 0: the count of non-zeros.
inline Kernel<void(const Tensor& x, double p, const Tensor& out)> norm_kernel{"norm"};

}  // namespace hm
