#include "harmonic/nn/normalization.h"

#include "harmonic/core/factories.h"
#include "harmonic/ops/nn_functional.h"

namespace hm::nn {

LayerNorm::LayerNorm(Shape shape, double eps_, bool affine)
    : UnaryModule(fmt::format("LayerNorm({})", str(shape))), normalized_shape(std::move(shape)), eps(eps_) {
  HM_CHECK(!normalized_shape.empty() && numel_of(normalized_shape) > 0, "LayerNorm",
           "normalized_shape must be non-empty with positive sizes, got {}", str(normalized_shape));
  if (affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    bias = register_parameter("bias", zeros(normalized_shape));
  }
}

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm(x, normalized_shape, weight, bias, eps); }

RMSNorm::RMSNorm(int64_t dim_, double eps_) : UnaryModule(fmt::format("RMSNorm({})", dim_)), dim(dim_), eps(eps_) {
  check(dim > 0, "RMSNorm", "dim must be positive, got {}", dim);
  weight = register_parameter("weight", ones({dim}));
}

Tensor RMSNorm::forward(const Tensor& x) {
  HM_CHECK(x.dim() >= 1 && x.size(-1) == dim, "RMSNorm", "expected input (..., {}), got {}", dim, x.desc());
  return rms_norm(x, weight, eps);
}

}  // namespace hm::nn
