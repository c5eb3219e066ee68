// Dropout.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm {

// Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator* gen = nullptr);

}  // namespace hm
