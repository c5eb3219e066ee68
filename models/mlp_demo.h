// The foundation's end-to-end check: a two-hidden-layer MLP trained with plain SGD on the
// spiral toy, written with nothing but ops and autograd (no nn/optim yet). Used by
// `harmonic demo` and by the end-to-end test, so both exercise the same code.
#pragma once
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace hm::models {

struct SpiralDemoConfig {
  int64_t points_per_class = 200;
  int64_t classes = 3;
  int64_t hidden = 64;
  int64_t epochs = 300;     // full-batch gradient steps
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
