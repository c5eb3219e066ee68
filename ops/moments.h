// Variance and standard deviation over dims (empty list = all dims).
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// correction = 1 is the unbiased estimator (PyTorch's default), 0 the population one.
Tensor var(const Tensor& x, const Dims& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, const Dims& dims = {}, int64_t correction = 1, bool keepdim = false);

}  // namespace hm
