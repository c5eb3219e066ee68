// Helpers shared by the trainer's .cpp files (not installed API).
#pragma once
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {

double now_seconds();                         // a steady clock, in seconds
std::string format_duration(double seconds);  // "m:ss" or "h:mm:ss"; "?" when not finite

// trainer.cuda_graph: one optimizer step captured with its static buffers (trainer_graph.cpp).
struct Trainer::StepGraph {
  // One rank: the whole step. Several: zero_grad, the micro-batches and the gradients packed
  // into the data-parallel buckets; `update` unpacks the buckets' mean, clips and steps.
  cuda::Graph graph, update;
  struct Micro {
    Tensor input, target;      // the static batch the capture read: each replay's batch is copied in
    int64_t global_items = 0;  // several ranks: the global batch's size, whose weight the capture holds
  };
  std::vector<Micro> micro;  // the step's micro-batches, in order
  Tensor loss, grad_norm;    // 0-d float64 the capture wrote (grad_norm undefined when not measured)
};

// Eager optimizer steps before the capture: the allocator's cache and lazily created state
// (optimizer moments, the deferred checks' flag, library handles) settle first.
inline constexpr int64_t kGraphWarmupSteps = 2;

}  // namespace hm::train
