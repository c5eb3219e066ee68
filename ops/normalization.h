// Layer and RMS normalisation over trailing dims.
#pragma once
#include <utility>

#include "harmonic/core/tensor.h"

namespace hm {

// Normalises over the trailing dims given by normalized_shape; weight/bias may be undefined.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
// The pre-norm block's residual add and the norm that follows, in one pass over the rows:
// returns {sum = x + r, layer_norm(sum, normalized_shape, weight, bias, eps)}, bit for bit add
// then layer_norm, with their backward (the sum's gradient passes to x and r). x, r: one
// shape, dtype and device.
std::pair<Tensor, Tensor> add_layer_norm(const Tensor& x, const Tensor& r, const Shape& normalized_shape,
                                         const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5);

namespace detail {
// The composed twin: {add(x, r), layer_norm(that sum, ...)}.
std::pair<Tensor, Tensor> add_layer_norm_composed(const Tensor& x, const Tensor& r, const Shape& normalized_shape,
                                                  const Tensor& weight, const Tensor& bias, double eps);
}  // namespace detail

// x / sqrt(mean(x^2) + eps) * weight over the last dim (T5-style: no mean subtraction, no bias).
Tensor rms_norm(const Tensor& x, const Tensor& weight = {}, double eps = 1e-6);
// add_layer_norm's twin for RMS norm: {sum = x + r, rms_norm(sum, weight, eps)} in one pass,
// bit for bit add then rms_norm.
std::pair<Tensor, Tensor> add_rms_norm(const Tensor& x, const Tensor& r, const Tensor& weight = {}, double eps = 1e-6);

namespace detail {
// The composed twin: {add(x, r), rms_norm(that sum, weight, eps)}.
std::pair<Tensor, Tensor> add_rms_norm_composed(const Tensor& x, const Tensor& r, const Tensor& weight, double eps);
}  // namespace detail

}  // namespace hm
