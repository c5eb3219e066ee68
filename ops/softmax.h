// softmax and log_softmax over one dim.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

Tensor softmax(const Tensor& x, int64_t dim = -1);
Tensor log_softmax(const Tensor& x, int64_t dim = -1);

}  // namespace hm
