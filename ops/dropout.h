// Dropout.
#pragma once
#include "core/random.h"
#include "core/tensor.h"

namespace hm {

// Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator* gen = nullptr);

}  // namespace hm
