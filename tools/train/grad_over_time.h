// Gradient flow over time (the FRU paper's Figure 5): for a recurrent model, the norms (L1, L2,
// Linf) of d loss_t / d h0 -- the gradient of the loss at step t w.r.t. the initial state --
// against t, and their averages over windows of steps ([0, w), [w, 2w), ..., a partial last
// window). A flat curve means the initial state still reaches late losses; a decaying one is
// the vanishing gradient. Any recurrent task can offer it by implementing RecurrentProbe and
// returning it from Task::recurrent_probe() (`harmonic grads <task> --over-time`).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

// What a recurrent task exposes for the study: its initial state, and the loss of every step
// as a function of that state, from one forward pass.
class RecurrentProbe {
 public:
  virtual ~RecurrentProbe() = default;
  // The initial state for `batch` (already on the model's device), (B, S): its values (usually
  // the model's default, zeros); gradient_over_time makes a leaf of it. A model with several
  // state tensors (LSTM's h and c) flattens them into S and splits them in step_losses.
  virtual Tensor initial_state(const data::Batch& batch) = 0;
  // The T losses of `batch` started from h0 (B, S): T scalars (one-element tensors), loss_t
  // built from h0 through the recurrence. Called once per measurement.
  virtual std::vector<Tensor> step_losses(const data::Batch& batch, const Tensor& h0) = 0;
};

// Norms of one step's gradient, or their mean over a window of steps.
struct GradNorms {
  double l1 = 0, l2 = 0, linf = 0;
};

struct GradWindow {
  int64_t begin = 0, end = 0;  // steps [begin, end)
  GradNorms mean;              // the per-step norms averaged over the window
};

struct GradOverTime {
  int64_t batch = 0, state_size = 0, window = 0;
  // steps[t]: norms of d loss_t / d h0 summed over the batch, i.e. the gradient w.r.t. one
  // initial state shared by every example (as nn::grads_wrt_initial_state); (T).
  std::vector<GradNorms> steps;
  std::vector<GradWindow> windows;  // ceil(T / window)
};

// One forward (probe.step_losses), then one backward per step with the graph retained: T
// passes over a graph of up to T steps, fine for T <= ~1000 at a small batch. Parameters the
// losses reach accumulate gradients (the Task overload clears them). Throws when window <= 0,
// h0 is not (B, S), there are no losses, or a loss is not a scalar.
GradOverTime gradient_over_time(RecurrentProbe& probe, const data::Batch& batch, int64_t window = 20);
// The task's probe on `batch` moved to the model's device, in eval mode (no dropout), leaving
// no gradients on the parameters. Throws when the task has no probe.
GradOverTime gradient_over_time(Task& task, const data::Batch& batch, int64_t window = 20);

// The window averages for a finished measurement (also how gradient_over_time fills them).
std::vector<GradWindow> window_means(const std::vector<GradNorms>& steps, int64_t window);

// {"batch_size", "state_size", "window", "num_steps", "reduction",
//  "steps": {"l1": [..], "l2": [..], "linf": [..]},
//  "windows": [{"begin", "end", "l1", "l2", "linf"}, ...]}
Json to_json(const GradOverTime& g);
// Fixed-width table of the window averages.
std::string format_table(const GradOverTime& g);
// The three window-averaged norms against the window's mean step, log y (Figure 5).
report::LinePlot plot_over_time(const GradOverTime& g, const std::string& title = "");

}  // namespace hm::train
