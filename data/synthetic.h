// Small generated data sets for demos and tests.
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm::data {

struct Classification {
  Tensor inputs;  // (N, features) float32
  Tensor labels;  // (N,) int64
};

// Interleaved 2-d spirals, one arm per class, with Gaussian noise (the classic
// not-linearly-separable toy). N = points_per_class * classes.
Classification make_spirals(int64_t points_per_class, int64_t classes, double noise, Generator& gen);

}  // namespace hm::data
