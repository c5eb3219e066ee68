// The foundation's end-to-end check: a two-hidden-layer MLP trained with plain SGD on the
// spiral toy, the update written out with ops and autograd. Used by `harmonic demo`, the
// end-to-end test and the "mlp-spirals" training task, so all exercise the same model.
#pragma once
#include <functional>
#include <vector>

#include "core/random.h"
#include "core/tensor.h"
#include "nn/linear.h"

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

struct SpiralDemoConfig {
  int64_t points_per_class = 200;
  int64_t classes = 3;
  int64_t hidden = 64;
  int64_t epochs = 300;  // full-batch gradient steps
  double learning_rate = 0.5;
  uint64_t seed = 1;
};

struct SpiralDemoResult {
  std::vector<double> losses;  // one per epoch
  double accuracy = 0;         // on the training set after the last step
};

// on_epoch(epoch, loss) is called after every step (for progress output).
SpiralDemoResult train_spiral_mlp(const SpiralDemoConfig& config,
                                  const std::function<void(int64_t, double)>& on_epoch = {});

}  // namespace hm::models
