// Held-out metrics of a classifier, as tasks report them from evaluate() / validate().
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/tensor.h"
#include "nn/module.h"

namespace hm::train {

struct ClassifierMetrics {
  double loss = 0;      // mean cross-entropy
  double accuracy = 0;  // fraction of argmax == label
  // {"<prefix>loss", "<prefix>accuracy"}: "test_" for evaluate(), "" for validate() (the
  // trainer adds "val_").
  nlohmann::json to_json(const std::string& prefix) const {
    return {{prefix + "loss", loss}, {prefix + "accuracy", accuracy}};
  }
};

// model maps x[i:e] (chunk, ...) to logits (chunk, classes); y (N,) int64 labels. Runs in
// chunks of `chunk` examples so memory stays bounded (a recurrent model's activations grow
// with the sequence). Call under no-grad in eval mode (the trainer's evaluate does). Throws when
// x and y disagree in N, N is 0 or chunk < 1.
ClassifierMetrics classifier_metrics(nn::UnaryModule& model, const Tensor& x, const Tensor& y, int64_t chunk);

}  // namespace hm::train
