#include "harmonic/models/spiral_mlp.h"

#include <cmath>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

namespace hm::models {
namespace {

// PyTorch's default Linear init: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias.
std::shared_ptr<nn::Linear> make_linear(int64_t in, int64_t out, Generator& gen) {
  Generator scratch(0);  // Linear's own init, overwritten below
  auto layer = std::make_shared<nn::Linear>(in, out, true, &scratch);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  NoGradGuard no_grad;
  layer->weight.copy_(uniform({out, in}, -bound, bound, {}, &gen));
  layer->bias.copy_(uniform({out}, -bound, bound, {}, &gen));
  return layer;
}

}  // namespace

SpiralMLP::SpiralMLP(int64_t inputs, int64_t hidden, int64_t classes, Generator& gen) : nn::UnaryModule("SpiralMLP") {
  fc1 = register_module("fc1", make_linear(inputs, hidden, gen));
  fc2 = register_module("fc2", make_linear(hidden, hidden, gen));
  fc3 = register_module("fc3", make_linear(hidden, classes, gen));
}

Tensor SpiralMLP::forward(const Tensor& x) {  // x (N, inputs)
  Tensor a = relu(fc1->forward(x));           // (N, hidden)
  Tensor b = relu(fc2->forward(a));           // (N, hidden)
  return fc3->forward(b);                     // (N, classes)
}

}  // namespace hm::models
