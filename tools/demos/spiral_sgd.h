// The foundation's end-to-end check, written with bare ops on purpose: the spiral MLP
// (models/spiral_mlp.h) trained full-batch with plain SGD, the update spelled out with ops and
// autograd instead of the Trainer. `harmonic demo` and tests/train/test_end_to_end.cpp run it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hm::demos {

struct SpiralDemoConfig {
  int64_t points_per_class = 200;
  int64_t classes = 3;
  int64_t hidden = 64;
  int64_t epochs = 300;  // full-batch gradient steps
  double learning_rate = 0.5;
  uint64_t seed = 1;
  std::string device = "cpu";  // "cuda", "cuda:N"
};

struct SpiralDemoResult {
  std::vector<double> losses;  // one per epoch
  double accuracy = 0;         // on the training set after the last step
};

// on_epoch(epoch, loss) is called after every step (for progress output).
SpiralDemoResult train_spiral_mlp(const SpiralDemoConfig& config,
                                  const std::function<void(int64_t, double)>& on_epoch = {});

}  // namespace hm::demos
