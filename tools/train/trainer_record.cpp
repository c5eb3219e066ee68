// After each optimizer step: the metrics line, the evaluation (best checkpoint, early stopping)
// and the periodic checkpoint; and Trainer::evaluate.
#include "harmonic/autograd/grad_mode.h"
#include "harmonic/tools/train/trainer.h"
#include "harmonic/tools/train/trainer_internal.h"

namespace hm::train {
namespace {

// The task's metrics in eval mode under no-grad (train mode restored after): its validation
// split's ("val_" prefixed) and its test metrics, each when asked for.
Json task_metrics(Task& task, const std::string& name, bool validation, bool test) {
  NoGradGuard no_grad;
  nn::Module& model = task.model();
  model.eval();
  Json val = validation ? task.validate() : Json::object();
  Json metrics = test ? task.evaluate() : Json::object();
  model.train();
  check(metrics.is_object(), "Trainer::evaluate", "task '{}' returned {} instead of a JSON object", name,
        metrics.dump());
  check(val.is_object() || val.is_null(), "Trainer::evaluate", "task '{}': validate() returned {}, not an object",
        name, val.dump());
  if (val.is_object())
    for (const auto& [k, v] : val.items()) metrics["val_" + k] = v;
  return metrics;
}

}  // namespace

Json Trainer::evaluate(bool test) { return task_metrics(task_, task_name_, true, test); }

bool Trainer::record_step(const StepRecord& r, const StepDue& due, FitResult& result) {
  bool early_stop = false;
  nlohmann::ordered_json record;
  if (due.log) {
    const double n = static_cast<double>(log_count_);
    // The session's throughput as the progress line shows it: measured before an evaluation
    // at this step, whose time is not training.
    const double session = now_seconds() - session_start_;
    record = {{"step", step_},
              {"epoch", r.epoch},
              {"loss", loss_sum_ / n},
              {"lr", r.lr},
              {"grad_norm", grad_norm_sum_ / n},
              {"items_per_s", session > 0 ? static_cast<double>(session_items_) / session : 0.0}};
    loss_sum_ = grad_norm_sum_ = 0, log_count_ = 0;
    progress(r, record["loss"].get<double>());
  }
  if (due.eval) {
    // The test split at the run's last evaluation only (trainer.test_metrics), which is
    // also the one where early stopping ends it.
    const bool test = due.done || options_.test_metrics == "every";
    Json metrics = evaluate(test);
    if (!metrics.empty()) {
      early_stop = track_best(metrics);
      if (early_stop && !test) {
        const Json test_only = task_metrics(task_, task_name_, false, true);
        for (const auto& [key, v] : test_only.items()) metrics[key] = v;
      }
      result.eval = metrics;
      if (record.empty()) record = {{"step", step_}, {"epoch", r.epoch}};
      for (const auto& [key, v] : metrics.items()) record[key] = v;
      print_eval(metrics);
      if (on_eval) on_eval(step_, metrics);
    } else if (!test) {
      warn_no_validation();
    }
  }
  if (!record.empty()) write_metrics(record);
  if (due.checkpoint && !out_dir_.empty()) {
    save_checkpoint(checkpoint_path());
    if (options_.keep_checkpoints) save_checkpoint(fmt::format("{}/checkpoint_step{}.safetensors", out_dir_, step_));
    last_checkpoint_step_ = step_;
    last_checkpoint_time_ = now_seconds();
  }
  return early_stop;
}

}  // namespace hm::train
