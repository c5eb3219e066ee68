// Kernel slot of where, which also serves masked_fill (ops/compare_select.h; see
// core/dispatch.h). Comparisons run through binary_kernel (ops/binary_kernels.h).
#pragma once
#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/binary_kernels.h"

namespace hm {

// out = cond ? a : b. cond (bool), a and b are views expanded to out's shape; out contiguous.
inline Kernel<void(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out)> where_kernel{"where"};

}  // namespace hm
