// A deterministic hold-out split of a dataset (a validation set carved from training data):
//
//   auto [train, val] = data::split_dataset(full, 0.1, seed);   // 90% / 10%
//
// The held-out part has round(fraction * N) examples chosen by a permutation that depends
// only on (N, seed); both parts keep their examples in the base dataset's order.
#pragma once
#include <cstdint>
#include <memory>

#include "harmonic/data/dataset.h"

namespace hm::data {

struct DatasetSplit {
  std::shared_ptr<Subset> train;     // the N - round(fraction * N) remaining examples
  std::shared_ptr<Subset> held_out;  // round(fraction * N) examples
};

// fraction in [0, 1); 0 gives an empty held-out part. Throws when a non-zero fraction would
// leave the held-out part or the training part empty.
DatasetSplit split_dataset(std::shared_ptr<const Dataset> dataset, double fraction, uint64_t seed);

}  // namespace hm::data
