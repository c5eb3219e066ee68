// The generic training loop behind `harmonic train`: steps over a task's loader, optional
// lr schedule and gradient clipping, progress output, DIR/metrics.jsonl, periodic
// evaluation and checkpoints, exact resume, and a clean stop on Ctrl-C.
//
//   auto task = build_task(spec, config, Device::cpu());
//   Trainer trainer(*task, spec.name, config, "runs/fashion");
//   if (resume) trainer.resume("runs/fashion/checkpoint_last.safetensors");
//   trainer.fit();
//
// Files in the output directory:
//   config.json                    the run's full config
//   metrics.jsonl                  one JSON object per line: step, epoch, loss, lr, grad_norm
//                                  (means over the steps since the previous line), time (s,
//                                  across resumes), items_per_s; and the eval metrics on the
//                                  lines of evaluated steps
//   checkpoint_last.safetensors    written every checkpoint_every steps, at the end and on
//                                  Ctrl-C (optim/checkpoint.h); keep_checkpoints also keeps
//                                  checkpoint_step<N>.safetensors
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "tools/train/task.h"

namespace hm::train {

// The "trainer" section of every task's config.
struct TrainerOptions {
  int64_t steps = 0;                     // optimizer steps; 0: epochs * batches per epoch
  int64_t epochs = 1;                    // used when steps is 0
  int64_t log_every = 10;                // progress and metrics line period (steps)
  int64_t eval_every = 0;                // 0: evaluate at the end only
  int64_t checkpoint_every = 0;          // 0: checkpoint at the end (and on Ctrl-C) only
  bool keep_checkpoints = false;         // also keep checkpoint_step<N>.safetensors
  double clip_grad_norm = 0.0;           // 0: no clipping (the norm is still measured)
  std::string lr_schedule = "constant";  // constant | cosine | linear (to end_lr_factor * lr)
  int64_t warmup_steps = 0;
  double end_lr_factor = 0.0;

  Json to_json() const;
  static TrainerOptions from_json(const Json& j);  // j: the "trainer" section
};

// What the trainer reports after each step (on_step) and the end of fit().
struct StepRecord {
  int64_t step = 0;   // steps completed, 1-based after the first step
  int64_t epoch = 0;  // the epoch of this step
  double loss = 0, lr = 0, grad_norm = 0;
};

struct FitResult {
  bool interrupted = false;  // stopped by Ctrl-C / request_stop()
  int64_t step = 0;          // steps completed
  Json eval;                 // the last evaluation's metrics (null when none ran)
  double seconds = 0;        // wall time of this fit() call
};

// The stop flag the SIGINT handler sets (fit() installs the handler for its duration; a
// second Ctrl-C kills the process). Tests and embedders may set it directly.
void request_stop();
// Ctrl-C requests a stop while this lives (a second Ctrl-C ends the process); the previous
// handler comes back after.
class SigintScope {
 public:
  SigintScope();
  ~SigintScope();
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  void (*previous_)(int) = nullptr;
};
bool stop_requested();
void clear_stop();

// Seeds hm::default_generator() with config["seed"], then builds the task.
std::unique_ptr<Task> build_task(const TaskSpec& spec, const Json& config, Device device);

class Trainer {
 public:
  // config: the complete config (default_config + overrides); out_dir "" writes no files.
  Trainer(Task& task, std::string task_name, Json config, std::string out_dir);

  // Restores a checkpoint of this task (model, optimizer, generators, position in the data,
  // logging accumulators) and rewinds metrics.jsonl to its step. Call before fit().
  void resume(const std::string& checkpoint_path);
  // Trains until options.steps (or epochs) are done or a stop is requested.
  FitResult fit();
  // The task's metrics in eval mode under no-grad (train mode restored after).
  Json evaluate();
  // A checkpoint of the current state.
  void save_checkpoint(const std::string& path) const;

  int64_t step() const { return step_; }
  int64_t total_steps() const;
  const TrainerOptions& options() const { return options_; }
  std::string checkpoint_path() const;  // out_dir/checkpoint_last.safetensors

  std::function<void(const StepRecord&)> on_step;  // after every step
  std::FILE* log = stdout;                         // progress output (nullptr: silent)
  bool tty = false;                                // progress in place; set from isatty(log)
  // fit() installs the Ctrl-C handler and clears the stop flag at its start and end. Off when
  // several trainers run on threads of one process (a study): the caller owns the handler and
  // the flag, and each fit() only watches stop_requested().
  bool handle_sigint = true;
  // The gradient norm of every step (metrics "grad_norm"); off, it is measured only when
  // trainer.clip_grad_norm needs it (a tiny model's step is a few dozen microseconds).
  bool measure_grad_norm = true;

 private:
  StepRecord train_step(const data::Batch& batch);
  void write_metrics(const nlohmann::ordered_json& record);
  void progress(const StepRecord& r, double mean_loss);  // mean since the last line
  void end_progress_line();                              // newline after an in-place line

  Task& task_;
  std::string task_name_;
  Json config_;
  std::string out_dir_;
  TrainerOptions options_;
  int64_t step_ = 0, epoch_ = 0, batch_ = 0;  // steps done; position of the next batch
  double elapsed_before_ = 0;                 // seconds of earlier sessions (resume)
  double loss_sum_ = 0, grad_norm_sum_ = 0;   // since the last metrics line
  int64_t log_count_ = 0;
  // Session timing for throughput and ETA.
  double session_start_ = 0;
  int64_t session_steps_ = 0, session_items_ = 0;
  bool line_open_ = false;  // a TTY progress line without its newline yet
  Device device_ = Device::cpu();  // the model's, found once per fit() (not per step)
};

}  // namespace hm::train
