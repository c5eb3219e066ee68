// Dropout.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm {

// Zeroes elements with probability p and scales the rest by 1/(1-p) when training.
Tensor dropout(const Tensor& x, double p, bool training = true, Generator* gen = nullptr);

// x + dropout(r, p, training, gen) in one kernel: the residual add of a transformer block.
// x, r: the same shape, dtype and device. Draws the same mask as dropout(r, ...), and the
// result is bit for bit add(x, dropout(r, ...)).
Tensor dropout_add(const Tensor& x, const Tensor& r, double p, bool training = true, Generator* gen = nullptr);

namespace detail {
// The composed twin: add(x, dropout(r, p, training, gen)).
Tensor dropout_add_composed(const Tensor& x, const Tensor& r, double p, bool training, Generator* gen);
}  // namespace detail

}  // namespace hm
