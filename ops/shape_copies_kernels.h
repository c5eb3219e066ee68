// Kernel slots of the data-moving shape ops (see core/dispatch.h). cat and pad need no slot
// of their own: they fill and copy_kernel into slices of the output.
#pragma once
#include <vector>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out = x reversed along `dims` (sorted, unique); x contiguous, out contiguous of x's shape.
inline Kernel<void(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out)> flip_kernel{"flip"};

// out = x on and below (upper: on and above) the diagonal `diagonal` of the last two dims,
// zero elsewhere; x contiguous (..., R, C), out contiguous of the same shape.
inline Kernel<void(const Tensor& x, int64_t diagonal, bool upper, const Tensor& out)> triangle_kernel{"triangle"};

}  // namespace hm
