// Stateless activation layers (wrappers over ops/elementwise.h), for Sequential.
#pragma once
#include <memory>
#include <string>

#include "harmonic/nn/module.h"
#include "harmonic/ops/elementwise.h"

namespace hm::nn {

class ReLU : public UnaryModule {
 public:
  ReLU() : UnaryModule("ReLU") {}
  Tensor forward(const Tensor& x) override { return relu(x); }
};

class GELU : public UnaryModule {
 public:
  explicit GELU(GeluApprox approx = GeluApprox::None)
      : UnaryModule(approx == GeluApprox::Tanh ? "GELU(tanh)" : "GELU"), approx(approx) {}
  Tensor forward(const Tensor& x) override { return gelu(x, approx); }
  GeluApprox approx;
};

class SiLU : public UnaryModule {
 public:
  SiLU() : UnaryModule("SiLU") {}
  Tensor forward(const Tensor& x) override { return silu(x); }
};

class Tanh : public UnaryModule {
 public:
  Tanh() : UnaryModule("Tanh") {}
  Tensor forward(const Tensor& x) override { return tanh(x); }
};

class Sigmoid : public UnaryModule {
 public:
  Sigmoid() : UnaryModule("Sigmoid") {}
  Tensor forward(const Tensor& x) override { return sigmoid(x); }
};

class Identity : public UnaryModule {
 public:
  Identity() : UnaryModule("Identity") {}
  Tensor forward(const Tensor& x) override { return x; }
};

// "relu", "gelu", "gelu_tanh", "silu" (or "swish"), "tanh", "sigmoid", "identity"
// (or "none"); throws listing the choices otherwise.
std::shared_ptr<UnaryModule> make_activation(const std::string& name);

}  // namespace hm::nn
