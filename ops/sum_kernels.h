// Kernel slot of sum and mean (ops/sum.h; see core/dispatch.h).
#pragma once
#include <vector>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// out = sum of x over `dims` (sorted, unique); out has x's shape with those dims set to 1.
inline Kernel<void(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out)> sum_kernel{"sum"};

}  // namespace hm
