// Sums and means over any set of dims (empty list = all dims), with keepdim, and the helper
// every broadcasting backward uses.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

Tensor sum(const Tensor& x, const Dims& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const Dims& dims = {}, bool keepdim = false);

// Sums a (broadcast) gradient back to `shape`: the one helper every broadcasting backward uses.
Tensor sum_to(const Tensor& grad, const Shape& shape);

}  // namespace hm
