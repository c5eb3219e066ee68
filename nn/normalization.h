// Normalisation layers over the trailing dims.
#pragma once
#include "harmonic/nn/module.h"

namespace hm::nn {

// (x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized_shape dims;
// weight ones, bias zeros (both absent when !affine).
class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x) override;  // (..., *normalized_shape)

  Shape normalized_shape;
  double eps;
  Tensor weight;  // normalized_shape or undefined
  Tensor bias;    // normalized_shape or undefined
};

// x / sqrt(mean(x^2) + eps) * weight over the last dim; weight ones.
class RMSNorm : public UnaryModule {
 public:
  explicit RMSNorm(int64_t dim, double eps = 1e-6);
  Tensor forward(const Tensor& x) override;  // (..., dim)

  int64_t dim;
  double eps;
  Tensor weight;  // (dim)
};

}  // namespace hm::nn
