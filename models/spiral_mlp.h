// The spiral toy's MLP: two hidden ReLU layers. Trained by the bare-ops SGD demo
// (tools/demos/spiral_sgd.h: `harmonic demo`, the end-to-end test) and by the "mlp-spirals"
// task through the Trainer, so both exercise the same model.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"
#include "harmonic/nn/linear.h"

namespace hm::models {

// Linear(inputs, hidden) ReLU Linear(hidden, hidden) ReLU Linear(hidden, classes), every
// weight and bias U(+-1/sqrt(fan_in)) drawn from gen in that order (the demo's original
// initialisation, kept so its numbers do not move).
class SpiralMLP : public nn::UnaryModule {
 public:
  SpiralMLP(int64_t inputs, int64_t hidden, int64_t classes, Generator& gen);
  Tensor forward(const Tensor& x) override;  // (N, inputs) -> (N, classes) logits

  std::shared_ptr<nn::Linear> fc1, fc2, fc3;
};

}  // namespace hm::models
