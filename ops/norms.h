// logsumexp and p-norms over dims.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim = false);
// p-norm (p = 2 by default; p = inf gives max |x|).
Tensor norm(const Tensor& x, double p = 2.0, const Dims& dims = {}, bool keepdim = false);

}  // namespace hm
