// Layer and RMS normalisation over trailing dims.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

// Normalises over the trailing dims given by normalized_shape; weight/bias may be undefined.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
// x / sqrt(mean(x^2) + eps) * weight over the last dim (T5-style: no mean subtraction, no bias).
Tensor rms_norm(const Tensor& x, const Tensor& weight = {}, double eps = 1e-6);

}  // namespace hm
