// Gradient inspection (the seed of the gradient tools): per-parameter norms of one batch's
// gradients, as a table for the terminal and as JSON for scripts (`harmonic grads`).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/train/task.h"

namespace hm::train {

struct GradStat {
  std::string name;
  Shape shape;
  double param_norm = 0;  // L2 norm of the parameter
  double grad_norm = 0;   // L2 norm of its gradient (0 when it got none)
  double grad_max = 0;    // largest |gradient element|
  bool has_grad = false;
};

struct GradReport {
  double loss = 0;
  double total_norm = 0;  // L2 norm over all gradients (what clipping sees)
  std::vector<GradStat> params;
};

// Runs the task's loss on `batch` (moved to the model's device) in train mode, backward,
// and measures every named parameter's gradient. Gradients are left on the parameters.
GradReport gradient_report(Task& task, const data::Batch& batch);

// Fixed-width table: name, shape, |param|, |grad|, max|grad|, |grad|/|param|.
std::string format_table(const GradReport& report);
Json to_json(const GradReport& report);

}  // namespace hm::train
