// Inclusive cumulative sum along one dim.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

Tensor cumsum(const Tensor& x, int64_t dim);

}  // namespace hm
