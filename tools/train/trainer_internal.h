// Helpers shared by the trainer's .cpp files (not installed API).
#pragma once
#include <string>

#include "harmonic/core/tensor.h"
#include "harmonic/cuda/runtime/graph.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {

double now_seconds();                         // a steady clock, in seconds
std::string format_duration(double seconds);  // "m:ss" or "h:mm:ss"; "?" when not finite

// trainer.cuda_graph: one optimizer step captured with its static buffers (trainer_graph.cpp).
struct Trainer::StepGraph {
  cuda::Graph graph;
  Tensor input, target;  // the static batch the capture read: each replay's batch is copied in
  Tensor loss, grad_norm;  // 0-d float64 the capture wrote (grad_norm undefined when not measured)
};

// Eager optimizer steps before the capture: the allocator's cache and lazily created state
// (optimizer moments, the deferred checks' flag, library handles) settle first.
inline constexpr int64_t kGraphWarmupSteps = 2;

}  // namespace hm::train
