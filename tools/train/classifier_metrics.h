// Held-out metrics of a classifier, as tasks report them from evaluate() / validate().
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "harmonic/core/tensor.h"
#include "harmonic/nn/module.h"

namespace hm::train {

struct ClassifierMetrics {
  double loss = 0;            // mean cross-entropy
  double accuracy = 0;        // fraction of argmax == label
  int64_t top_k = 0;          // k of top_k_accuracy; 0: not measured
  double top_k_accuracy = 0;  // fraction whose label is among the k largest logits
  // {"<prefix>loss", "<prefix>accuracy"} and, when measured, "<prefix>top<k>" ("test_top5"):
  // "test_" for evaluate(), "" for validate() (the trainer adds "val_").
  nlohmann::json to_json(const std::string& prefix) const {
    nlohmann::json j = {{prefix + "loss", loss}, {prefix + "accuracy", accuracy}};
    if (top_k > 0) j[prefix + "top" + std::to_string(top_k)] = top_k_accuracy;
    return j;
  }
};

// How many rows of logits (N, C) hold their label (N,) int64 among their k largest values:
// rows where fewer than k logits are strictly greater than the label's (so a tie with the
// k-th value counts as a hit). k = 1 is argmax accuracy up to ties. Throws unless 1 <= k <= C.
int64_t top_k_hits(const Tensor& logits, const Tensor& labels, int64_t k);

// model maps x[i:e] (chunk, ...) to logits (chunk, classes); y (N,) int64 labels. Runs in
// chunks of `chunk` examples so memory stays bounded (a recurrent model's activations grow
// with the sequence). top_k > 0 also measures the top-k accuracy (top_k_hits). Call under
// no-grad in eval mode (the trainer's evaluate does). Throws when x and y disagree in N, N is 0,
// chunk < 1 or top_k is negative or above the number of classes.
ClassifierMetrics classifier_metrics(nn::UnaryModule& model, const Tensor& x, const Tensor& y, int64_t chunk,
                                     int64_t top_k = 0);

}  // namespace hm::train
