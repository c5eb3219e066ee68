// Kernel slot of where, which also serves masked_fill (ops/compare_select.h; see
// core/dispatch.h). Comparisons run through binary_kernel (ops/binary_kernels.h).
#pragma once
#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/binary_kernels.h"

namespace hm {

// out = cond ? a : b. cond (bool), a and b are views expanded to out's shape; out contiguous.
inline Kernel<void(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out)> where_kernel{"where"};

}  // namespace hm
