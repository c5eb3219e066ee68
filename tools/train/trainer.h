// The generic training loop behind `harmonic train`: steps over a task's loader with optional
// gradient accumulation, lr schedule, gradient clipping and bf16 autocast (CUDA), progress
// output, DIR/metrics.jsonl, periodic evaluation (validation split and test metrics), the
// last and the best checkpoint, early stopping, exact resume, and a clean stop on Ctrl-C.
//
//   auto task = build_task(spec, config, Device::cpu());
//   Trainer trainer(*task, spec.name, config, "runs/fashion");
//   if (resume) trainer.resume("runs/fashion/checkpoint_last.safetensors");
//   trainer.fit();
//
// Epochs are counted from 1 wherever they are shown or recorded: StepRecord.epoch,
// metrics.jsonl "epoch", the progress line, messages and the eval/grads outputs. The epoch
// of a step is the epoch its batches belong to (step 1 is in epoch 1). Checkpoints store the
// position of the next batch as CheckpointInfo.epoch = epochs completed (the loader's 0-based
// epoch index) and extra "batch_in_epoch" (0-based).
//
// Files in the output directory:
//   config.json                    the run's full config
//   metrics.jsonl                  one JSON object per line: step, epoch, loss, lr, grad_norm
//                                  (means over the steps since the previous line), time (s,
//                                  across resumes), items_per_s; and the eval metrics on the
//                                  lines of evaluated steps ("val_*" from Task::validate, the
//                                  others as Task::evaluate names them)
//   checkpoint_last.safetensors    written every checkpoint_every steps (and checkpoint_seconds
//                                  seconds), at the end and on
//                                  Ctrl-C (optim/checkpoint.h); keep_checkpoints also keeps
//                                  checkpoint_step<N>.safetensors
//   checkpoint_best.safetensors    with trainer.monitor set: the state at the evaluation with
//                                  the best monitored metric so far
#pragma once
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harmonic/core/error.h"
#include "harmonic/core/profiler.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/optim/schedule.h"
#include "harmonic/tools/train/task.h"

namespace hm::dist {
class DataParallel;
}

namespace hm::train {

class TensorBoardWriter;

// The "trainer" section of every task's config (README: "Trainer config keys").
struct TrainerOptions {
  int64_t steps = 0;   // optimizer steps; 0: epochs * steps per epoch
  int64_t epochs = 1;  // used when steps is 0
  // Micro-batches per optimizer step. Each micro-batch's loss is scaled by 1/k, so with
  // equal-size batches the step equals one step on a k times larger batch. Groups do not
  // cross epochs: when the epoch's batch count is not a multiple of k, its last group holds
  // the remaining r < k micro-batches, scaled by 1/r (a smaller effective batch). An epoch
  // has ceil(batches / k) steps; `steps` counts optimizer steps.
  int64_t accumulate = 1;
  int64_t log_every = 10;        // progress and metrics line period (steps)
  int64_t eval_every = 0;        // 0: evaluate at the end only
  int64_t checkpoint_every = 0;  // 0: checkpoint at the end (and on Ctrl-C) only
  // Also checkpoint when this many seconds of training passed since the last checkpoint (0: off):
  // a long run killed from outside loses at most this much. Saving changes nothing in the run.
  double checkpoint_seconds = 0;
  bool keep_checkpoints = false;         // also keep checkpoint_step<N>.safetensors
  double clip_grad_norm = 0.0;           // 0: no clipping (the norm is still measured)
  std::string lr_schedule = "constant";  // constant | cosine | linear (to end_lr_factor * lr) | staircase
  int64_t warmup_steps = 0;
  double end_lr_factor = 0.0;
  double lr_decay = 1.0;                // staircase: lr * lr_decay^(step // lr_decay_every) (FRU paper)
  int64_t lr_decay_every = 1000;        // staircase period in steps
  // When the task's test metrics (Task::evaluate) are computed: "end", at the run's last
  // evaluation only (the evaluations before it run the validation split, Task::validate, so
  // nothing during training looks at the test split), or "every" evaluation (the paper studies,
  // whose figures are test curves).
  std::string test_metrics = "end";
  std::string monitor;                  // a validation metric ("val_loss"); "": no best checkpoint
  std::string monitor_mode = "min";     // min | max: which direction is better
  int64_t early_stopping_patience = 0;  // evaluations without improvement; 0: off (needs monitor)
  std::string precision = "fp32";       // fp32 | bf16 (CUDA autocast of the GEMMs) | bf16-activations
                                        // (and their products stay bfloat16: ops/autocast.h)
  // Data-parallel runs (mpirun -np N): MiB of gradients per all-reduce bucket, whether buckets
  // are reduced during backward (false: all after it), and the seconds a collective may take
  // before the job is aborted (<= 0: no limit).
  double ddp_bucket_mb = 25;
  bool ddp_overlap = true;
  double dist_timeout = 300;
  // CUDA graphs (trainer_graph.cpp): "off", "on" (capture one whole optimizer step, all its
  // micro-batches, after kGraphWarmupSteps eager ones and replay it; with several ranks the
  // gradient all-reduce runs between two graphs; whatever prevents that is an error naming the
  // op) or "auto" (the same, but one log line and eager steps when capture is not possible).
  // Off by default: verified on the emulated CUDA device only, not yet on a GPU.
  std::string cuda_graph = "off";
  // A folder for TensorBoard event files (every metrics.jsonl value as a scalar, the resolved
  // config as text); "": none. `harmonic train --tensorboard DIR`.
  std::string tensorboard;

  Json to_json() const;
  static TrainerOptions from_json(const Json& j);  // j: the "trainer" section
  // Keys added after study results were recorded with whole trainer sections in their run
  // configs, with their defaults: to_json() writes them only when set (so those configs stay
  // equal and the recorded studies resume and report), --set and config files may still set them.
  static const Json& late_keys();
};

// A run shortened below the task's length whose warmup the user left at the task's default:
// scales config's trainer.warmup_steps to keep its share of the run (rounded, below the run's
// length), as a warmup ratio does in Lightning and Hugging Face, so `train kjv-lm --steps 60`
// runs instead of ending inside a 200-step warmup. `task_config`: the config the run shortens
// (the task's default, or its smoke config); `batches_per_epoch`: the training loader's, for
// runs counted in epochs. Returns the line that says what changed, "" when nothing did.
std::string scale_default_warmup(Json& config, const Json& task_config, int64_t batches_per_epoch);

// Config keys a resumed run may change (see resume_safe_keys() in trainer_options.cpp).
const std::vector<std::string>& resume_safe_keys();
// Throws naming the first key (dotted) that differs between a checkpoint's config and the
// resumed run's config but is not resume-safe.
// A key the checkpoint's config lacks (added to Harmonic after it was written) is fine at its
// default: the trainer's, or task_defaults' (the task's default_config, when given).
void check_resume_config(const Json& checkpoint_config, const Json& config, const Json& task_defaults = Json());
// The task a trainer checkpoint was written by (its "extra" metadata's "task"), or "" when it
// names none (not a trainer checkpoint, or a hand-edited one whose "task" is not a string).
std::string checkpoint_task(const optim::CheckpointInfo& info);

// What the trainer reports after each optimizer step (on_step).
struct StepRecord {
  int64_t step = 0;                        // steps completed, 1-based after the first step
  int64_t epoch = 0;                       // the epoch of this step, 1-based
  int64_t items = 0;                       // examples in the step's batch(es) (size(0) of each input)
  double loss = 0, lr = 0, grad_norm = 0;  // loss: mean over the step's micro-batches
};

// Thrown when a step's loss is NaN or infinite: the run diverged. An Error (the message names
// the task, step, epoch and batch) that a study can catch to record the divergence.
struct NonFiniteLoss : Error {
  NonFiniteLoss(const std::string& message, int64_t step, double loss) : Error(message), step(step), loss(loss) {}
  int64_t step;  // the 1-based step whose loss was not finite
  double loss;
};

struct FitResult {
  bool interrupted = false;    // stopped by Ctrl-C / request_stop() / session_step_limit
  bool stopped_early = false;  // early stopping: the monitored metric stopped improving
  int64_t step = 0;            // steps completed
  Json eval;                   // the last evaluation's metrics (null when none ran)
  double best = 0;             // the best monitored value (when monitor is set and an eval ran)
  int64_t best_step = 0;       // its step (0: none)
  double seconds = 0;          // wall time of this fit() call
};

// The stop flag the SIGINT handler sets (fit() installs the handler for its duration; a
// second Ctrl-C, more than half a second later, ends the process; a repeat within that time is
// the same request, as `timeout -s INT` sends it twice). Tests and embedders may set it directly.
void request_stop();
bool stop_requested();
// Ctrl-C requests a stop while this lives (a second Ctrl-C ends the process, see above); the previous
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
void clear_stop();

// The line under the trainer's start line, as Lightning's model summary: the parameter count
// and size, the device (the emulated CUDA device named as such: its kernels run on the host),
// the CPU threads and the precision. "model: 1,234 parameters (4.8 KiB) | device cpu, 2 CPU
// threads | precision fp32".
std::string run_summary_line(const std::vector<Tensor>& parameters, Device device, bool emulated_cuda,
                             const std::string& precision, int threads);

// The files of a previous run in dir (config.json, metrics.jsonl, checkpoint_*.safetensors,
// eval_step*.json, grads_step*.json); empty when there is none.
std::vector<std::string> run_files(const std::string& dir);

class Trainer {
 public:
  // config: the complete config (default_config + overrides); out_dir "" writes no files.
  Trainer(Task& task, std::string task_name, Json config, std::string out_dir);
  ~Trainer();  // out of line: the TensorBoard writer is an incomplete type here

  // Restores a checkpoint of this task (model, optimizer, generators, position in the data,
  // logging and best-metric bookkeeping) and rewinds metrics.jsonl to its step. Call before
  // fit(). The config may differ from the checkpoint's only in resume_safe_keys(); a changed
  // top-level "lr" rescales every parameter group's lr. Returns the caller's state saved with
  // the checkpoint (checkpoint_state), null when there is none.
  Json resume(const std::string& checkpoint_path);
  // Trains until options.steps (or epochs) are done, early stopping triggers or a stop is
  // requested.
  FitResult fit();
  // The task's validation metrics ("val_" prefixed) and evaluation metrics, in eval mode
  // under no-grad (train mode restored after); with test = false the validation metrics only.
  Json evaluate(bool test = true);
  // A checkpoint of the current state.
  void save_checkpoint(const std::string& path) const;

  int64_t step() const { return step_; }
  // Seconds of training across resumes (the checkpoint's "elapsed" plus this session's fits).
  double elapsed_seconds() const;
  const std::string& out_dir() const { return out_dir_; }
  const std::string& task_name() const { return task_name_; }
  int64_t total_steps() const;
  int64_t steps_per_epoch() const;  // ceil(batches / accumulate)
  const TrainerOptions& options() const { return options_; }
  std::string checkpoint_path() const;       // last_checkpoint_in(out_dir)
  std::string best_checkpoint_path() const;  // best_checkpoint_in(out_dir)
  // Where a Trainer with this out_dir keeps its checkpoints, for readers without a Trainer
  // (`harmonic train --resume`, the study driver and `--status`).
  static std::string last_checkpoint_in(const std::string& out_dir);  // out_dir/checkpoint_last.safetensors
  static std::string best_checkpoint_in(const std::string& out_dir);  // out_dir/checkpoint_best.safetensors
  // The seconds of training (across resumes) a Trainer's checkpoint records: what a run resumed
  // from it has already spent. Throws naming the file when it holds no trainer's "elapsed".
  static double checkpoint_training_seconds(const std::string& checkpoint_path);

  // After every optimizer step. Setting it makes the trainer read each step's loss (a wait for
  // the device on CUDA, where it otherwise reads the losses at log lines only).
  std::function<void(const StepRecord&)> on_step;
  std::function<void(int64_t step, const Json& metrics)> on_eval;  // after every evaluation
  // The caller's bookkeeping that must survive a resume with the trainer's (a study run's
  // evaluation curve so far): called at every checkpoint, saved in it, returned by resume().
  std::function<Json()> checkpoint_state;
  std::FILE* log = stdout;  // progress output (nullptr: silent)
  bool tty = false;         // progress in place; set from isatty(log)
  // fit() installs the Ctrl-C handler and clears the stop flag at its start and end. Off when
  // several trainers run on threads of one process (a study): the caller owns the handler and
  // the flag, and each fit() only watches stop_requested().
  bool handle_sigint = true;
  // The gradient norm of every step (metrics "grad_norm"); off, it is measured only when
  // trainer.clip_grad_norm needs it (a tiny model's step is a few dozen microseconds).
  bool measure_grad_norm = true;
  // Data parallelism: with a group of N > 1 ranks, fit() broadcasts rank 0's parameters, each
  // rank trains on its shard of every global batch (data/shard.h) and gradients are averaged
  // (nn/distributed/data_parallel.h); the logged loss and items are over all ranks. Give rank 0
  // the out_dir and the log, the other ranks "" and nullptr. Null: a single process.
  std::shared_ptr<dist::ProcessGroup> process_group;
  // Op-level profile (core/profiler.h) of this many optimizer steps, after one warm-up step
  // when the session has more: the table goes to the log, the numbers to out_dir/profile.json
  // (`harmonic train --profile N`). 0: off.
  int64_t profile_steps = 0;
  ProfileReport last_profile;  // the last profile taken (steps == 0: none)
  // A fit() that has trained this many optimizer steps in its session stops there, as a stop
  // request would (FitResult::interrupted); 0: no limit. A study's projection measures a few
  // steps of each run this way (tools/studies/driver/projection.h).
  int64_t session_step_limit = 0;
  // trainer.cuda_graph: the optimizer steps run by replaying the captured graph so far, and why
  // capture was given up ("" while it was not; auto only: under "on" that is an error).
  int64_t graph_replays() const { return graph_replays_; }
  const std::string& graph_fallback() const { return graph_fallback_; }

 private:
  // A finished step whose loss and gradient norm may still be on the device.
  struct PendingStep {
    StepRecord record;        // loss and grad_norm filled by settle_pending()
    Tensor loss, grad_norm;   // 0-d float64 (grad_norm undefined when not measured)
    int64_t first_batch = 0;  // the step's first batch in its epoch, for the divergence error
  };
  // Forward + backward of micro-batch batch_index, one of `group` in its optimizer step on one
  // of `world` ranks; returns its share of the step's loss, a 0-d float64 tensor (undefined when
  // this rank got no example of the batch): on the host (read, and checked finite before the
  // backward) when read_each_step_ and not capturing a CUDA graph, else on the device.
  Tensor micro_step(const data::Batch& batch, int64_t batch_index, int64_t group, int world);
  int64_t global_batch_items(int64_t batch_index) const;  // examples in global batch batch_index
  // Clips (or measures) the gradient norm and takes the optimizer step; returns the norm, 0-d
  // float64 on the device (undefined when not measured).
  Tensor update();
  // The step just taken, its loss and norm still to be read by settle_pending().
  PendingStep pending_step(Tensor loss, Tensor grad_norm, int64_t items, int64_t first_batch) const;
  // Reads the pending steps' losses and norms (one transfer each), throws NonFiniteLoss at the
  // first non-finite loss, adds them to the log sums; returns the last step's record.
  StepRecord settle_pending();
  void apply_lr(int64_t step);
  // trainer.cuda_graph (trainer_graph.cpp). graph_due: whether the step about to start, of
  // `group` micro-batches, is a candidate for a replay (false: off, warm-up, an epoch's short
  // last group, auto after a failed capture), so fit() holds its batches for graph_step.
  bool graph_due(int64_t group);
  // The step on these micro-batches (first_batch.. in the epoch) as a replay of the captured
  // step, capturing it first when there is none; nullopt to run it eagerly (a batch of another
  // shape, a short batch before the capture, or auto after a failed capture). ddp: the
  // gradient sync when world > 1.
  std::optional<PendingStep> graph_step(std::span<const data::Batch> group, int64_t first_batch, int world,
                                        dist::DataParallel* ddp, int64_t items);
  void capture_step(std::span<const data::Batch> group, int64_t first_batch, int world, dist::DataParallel* ddp);
  void graph_give_up(const std::string& why);  // on: throws naming why; auto: logs it, eager from now on
  struct StepGraph;
  std::unique_ptr<StepGraph> graph_;
  int64_t graph_replays_ = 0;
  std::string graph_fallback_;
  // What is due after optimizer step step_ (fit's bookkeeping).
  struct StepDue {
    bool done = false, log = false, eval = false, checkpoint = false;
  };
  // The metrics line, the evaluation (best checkpoint, early stopping) and the checkpoint due
  // after a step (trainer_record.cpp); true when early stopping ends the run.
  bool record_step(const StepRecord& r, const StepDue& due, FitResult& result);
  // Data parallelism (trainer_ranks.cpp): every rank starts from rank 0's state and syncs its
  // gradients through the returned DataParallel; after each step the loss summed over the ranks
  // replaces taken's, and the result says whether any rank was asked to stop.
  std::unique_ptr<dist::DataParallel> start_data_parallel();
  bool share_across_ranks(PendingStep& taken);
  // After an evaluation: the best checkpoint and early stopping; true to stop.
  bool track_best(const Json& metrics);
  void write_metrics(const nlohmann::ordered_json& record);
  void print_start(int64_t total, int64_t batches_per_epoch) const;  // "training TASK: ..." and run_summary_line
  void progress(const StepRecord& r, double mean_loss);  // mean since the last line
  void print_eval(const Json& metrics);
  void warn_no_validation();  // once: an evaluation before the last found no validation split
  void end_progress_line();  // newline after an in-place line
  void rewind_metrics();     // drops metrics.jsonl lines after step_

  Task& task_;
  std::string task_name_;
  Json config_;
  std::string out_dir_;
  TrainerOptions options_;
  Device device_;                             // the model's, cached at construction
  std::vector<Tensor> params_;                // the model's parameters, for clipping (set by fit)
  optim::Schedule schedule_;                  // the lr schedule relative to the base lr (set by fit)
  int64_t step_ = 0, epoch_ = 0, batch_ = 0;  // steps done; position of the next batch (0-based)
  int64_t last_checkpoint_step_ = -1;         // this fit's last checkpoint (-1: none yet)
  double last_checkpoint_time_ = 0;
  double elapsed_before_ = 0;                 // seconds of earlier sessions (resume)
  double loss_sum_ = 0, grad_norm_sum_ = 0;   // since the last metrics line
  int64_t log_count_ = 0;
  bool warned_no_validation_ = false;
  // The host reads every step's loss on the CPU (free), with on_step (it gets each loss) and with
  // several ranks; otherwise (a CUDA device) only at log lines, evaluations, checkpoints and the
  // end, so it never waits for the device inside a step. Set by fit().
  bool read_each_step_ = true;
  std::vector<PendingStep> pending_;  // steps since the last read
  double lr_scale_ = 1.0;  // new lr / the optimizer's initial lr after an lr change on resume
  // The monitored metric: best value, its step, evaluations since it improved.
  double best_ = 0;
  int64_t best_step_ = 0, evals_since_best_ = 0;
  std::string stop_reason_;  // why early stopping ended the run
  // Session timing for throughput and ETA.
  double session_start_ = 0;
  int64_t session_steps_ = 0, session_items_ = 0;
  bool line_open_ = false;  // a TTY progress line without its newline yet
  std::unique_ptr<Profiler> profiler_;
  std::unique_ptr<TensorBoardWriter> tensorboard_;  // opened by the first metrics line
  int64_t profile_from_ = -1;  // the step the profile started after
  // Starts or ends the profile around optimizer steps.
  void profile_before_step(int64_t session_total);
  void profile_after_step();
  void finish_profile();  // prints and writes the profile of the steps so far
};

}  // namespace hm::train
