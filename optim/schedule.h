// Learning-rate schedules as small value objects: `lr_at(step)` is a pure function of the
// 0-based optimizer step, so a resumed run needs only the step counter. A linear warmup can
// precede any schedule ("warmup then X": X starts counting when the warmup ends).
// LRScheduler applies a schedule to an optimizer's groups, each relative to its initial lr.
#pragma once
#include <cstdint>
#include <string>

namespace hm::optim {

class Optimizer;

struct Schedule {
  enum class Kind { Constant, StepDecay, Exponential, Cosine, Linear };
  Kind kind = Kind::Constant;
  double lr = 1e-3;           // the peak (base) lr
  double decay = 1.0;         // StepDecay: factor per `every` steps; Exponential: factor per step
  int64_t every = 1;          // StepDecay period
  int64_t steps = 0;          // Cosine/Linear: length of the decay (after the warmup)
  double end_lr = 0.0;        // Cosine/Linear: the lr reached after `steps` and kept
  int64_t warmup_steps = 0;   // linear warmup before the schedule
  double warmup_start = 0.0;  // warmup starts at warmup_start * lr

  // The lr of 0-based step `step`. During the warmup, lr * (f + (1 - f) (step + 1) / warmup)
  // with f = warmup_start, so the last warmup step reaches lr; then the schedule at
  // step - warmup_steps.
  double lr_at(int64_t step) const;
  std::string str() const;  // "cosine(lr=0.0006, steps=1000, end_lr=6e-05) after warmup(100)"
};

Schedule constant_lr(double lr);
// lr * decay^(step // every): the staircase decay of the FRU paper (every = 1000 there).
Schedule step_decay(double lr, double decay, int64_t every);
// lr * gamma^step.
Schedule exponential_decay(double lr, double gamma);
// Half cosine from lr to end_lr over `steps`, then end_lr (llm.c/nanoGPT style).
Schedule cosine_decay(double lr, int64_t steps, double end_lr = 0.0);
// Straight line from lr to end_lr over `steps`, then end_lr.
Schedule linear_decay(double lr, int64_t steps, double end_lr = 0.0);
// `schedule` preceded by a linear warmup of `warmup_steps` starting at start_factor * lr.
Schedule with_warmup(Schedule schedule, int64_t warmup_steps, double start_factor = 0.0);
// The common transformer recipe: warmup, then cosine to end_lr; `total_steps` includes the
// warmup, so the lr reaches end_lr at step total_steps.
Schedule warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double end_lr = 0.0);

class LRScheduler {
 public:
  LRScheduler(Optimizer& optimizer, Schedule schedule);
  // Sets every group's lr for `step`: initial_lr * lr_at(step) / schedule.lr (exactly
  // lr_at(step) for a group whose initial lr is the schedule's lr). Returns lr_at(step).
  double apply(int64_t step);
  // Applies the schedule at the optimizer's own step count (call before optimizer.step()).
  double apply();
  const Schedule& schedule() const { return schedule_; }

 private:
  Optimizer& optimizer_;
  Schedule schedule_;
};

}  // namespace hm::optim
