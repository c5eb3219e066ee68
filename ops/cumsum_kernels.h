// Kernel slot of cumsum (ops/cumsum.h; see core/dispatch.h).
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out (outer, n, inner) = inclusive prefix sum of x (outer, n, inner) along n; from the
// back when reverse (the gradient of cumsum).
inline Kernel<void(const Tensor& x, bool reverse, const Tensor& out)> cumsum_kernel{"cumsum"};

}  // namespace hm
