// Fully connected layer.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

// y = x W^T + b. PyTorch's default init: W ~ kaiming_uniform(a = sqrt(5)), i.e.
// U(+-1/sqrt(in)), and b ~ U(+-1/sqrt(in)).
class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;  // (..., in) -> (..., out)
  void reset_parameters(Generator* gen = nullptr);

  int64_t in_features, out_features;
  Tensor weight;  // (out, in)
  Tensor bias;    // (out) or undefined

 protected:
  // Adopts existing tensors as this layer's parameters (shared, not copied): weight (out, in),
  // bias (out) or undefined. For layers that extend a trained Linear (LoRALinear).
  Linear(std::string type_name, const Tensor& weight, const Tensor& bias);
};

}  // namespace hm::nn
