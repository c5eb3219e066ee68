// The trainer's checkpoints: saving, exact resume (with the resume-safe config changes), the
// rewind of metrics.jsonl, and the best checkpoint / early stopping bookkeeping.
#include <cmath>
#include <fstream>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/train/trainer.h"
#include "harmonic/tools/train/trainer_internal.h"

namespace hm::train {

std::string Trainer::last_checkpoint_in(const std::string& out_dir) { return out_dir + "/checkpoint_last.safetensors"; }
std::string Trainer::best_checkpoint_in(const std::string& out_dir) { return out_dir + "/checkpoint_best.safetensors"; }
std::string Trainer::checkpoint_path() const { return last_checkpoint_in(out_dir_); }
std::string Trainer::best_checkpoint_path() const { return best_checkpoint_in(out_dir_); }

double Trainer::checkpoint_training_seconds(const std::string& checkpoint_path) {
  const Json extra = optim::read_checkpoint_info(checkpoint_path).extra;
  check(extra.is_object() && extra.contains("elapsed") && extra["elapsed"].is_number(),
        "Trainer::checkpoint_training_seconds", "'{}' records no trainer's \"elapsed\" seconds (its metadata: {})",
        checkpoint_path, extra.dump());
  return extra["elapsed"].get<double>();
}

double Trainer::elapsed_seconds() const {
  return elapsed_before_ + (session_start_ > 0 ? now_seconds() - session_start_ : 0.0);
}

void Trainer::save_checkpoint(const std::string& path) const {
  optim::CheckpointInfo info;
  info.step = step_;
  info.epoch = epoch_;  // epochs completed
  info.config = config_;
  info.extra = {{"task", task_name_},
                {"batch_in_epoch", batch_},
                {"elapsed", elapsed_seconds()},
                {"loss_sum", loss_sum_},
                {"grad_norm_sum", grad_norm_sum_},
                {"log_count", log_count_},
                {"lr_scale", lr_scale_},
                {"monitor", options_.monitor},
                {"best", best_},
                {"best_step", best_step_},
                {"evals_since_best", evals_since_best_}};
  if (checkpoint_state) info.extra["caller_state"] = checkpoint_state();
  optim::save_checkpoint(path, {&task_.model(), &task_.optimizer(), task_.generators()}, info);
}

Json Trainer::resume(const std::string& path) {
  const optim::CheckpointInfo head = optim::read_checkpoint_info(path);
  const Json& x = head.extra;
  const std::string task = checkpoint_task(head);
  check(task == task_name_, "Trainer::resume", "'{}' is a checkpoint of task '{}', not '{}'", path,
        task.empty() ? "?" : task, task_name_);
  if (head.config.is_object()) {
    Json defaults;  // the registered task's, for keys newer than the checkpoint
    for (const TaskSpec& spec : tasks())
      if (spec.name == task_name_) defaults = default_config(spec);
    check_resume_config(head.config, config_, defaults);
  }
  // The trainer's bookkeeping, read before anything is restored: a missing or mistyped field
  // (a hand-edited or foreign checkpoint) names the file instead of escaping as a bare JSON error.
  struct Bookkeeping {
    int64_t batch, log_count;
    double elapsed, loss_sum, grad_norm_sum, lr_scale;
    std::string monitor;
    double best;
    int64_t best_step, evals_since_best;
  } b;
  try {
    b = {x.at("batch_in_epoch").get<int64_t>(), x.at("log_count").get<int64_t>(),
         x.at("elapsed").get<double>(),         x.at("loss_sum").get<double>(),
         x.at("grad_norm_sum").get<double>(),   x.value("lr_scale", 1.0),
         x.value("monitor", std::string()),     x.value("best", 0.0),
         x.value("best_step", int64_t{0}),      x.value("evals_since_best", int64_t{0})};
  } catch (const Json::exception& e) {
    throw_error("Trainer::resume",
                fmt::format("'{}': the trainer's \"extra\" metadata {} is malformed: {}", path, x.dump(), e.what()));
  }
  optim::load_checkpoint(path, {&task_.model(), &task_.optimizer(), task_.generators()});
  step_ = head.step;
  epoch_ = head.epoch;
  batch_ = b.batch;
  elapsed_before_ = b.elapsed;
  loss_sum_ = b.loss_sum;
  grad_norm_sum_ = b.grad_norm_sum;
  log_count_ = b.log_count;
  lr_scale_ = b.lr_scale;
  // A changed top-level lr (resume_safe_keys) scales every group from here on.
  if (head.config.is_object() && head.config.contains("lr") && config_.contains("lr") &&
      head.config["lr"].is_number() && config_["lr"].is_number() && head.config["lr"] != config_["lr"]) {
    const double was = head.config["lr"].get<double>(), now = config_["lr"].get<double>();
    check(was > 0 && now > 0, "Trainer::resume", "lr must stay > 0 (checkpoint {}, asked {})", was, now);
    lr_scale_ *= now / was;
    if (log)
      fmt::print(log, "lr changed on resume: {} -> {} (every parameter group scaled by {:.4g})\n", was, now, now / was);
  }
  // The best-metric bookkeeping carries over unless the monitored metric changed.
  if (b.monitor == options_.monitor) {
    best_ = b.best;
    best_step_ = b.best_step;
    evals_since_best_ = b.evals_since_best;
  }
  const int64_t nb = task_.train_loader().num_batches();
  check(batch_ >= 0 && batch_ < nb, "Trainer::resume",
        "'{}': batch {} of epoch {} is outside the loader's {} batches (did the batch size change?)", path, batch_ + 1,
        epoch_ + 1, nb);
  check(batch_ % options_.accumulate == 0, "Trainer::resume",
        "'{}': batch {} of epoch {} does not start a group of trainer.accumulate={} batches", path, batch_ + 1,
        epoch_ + 1, options_.accumulate);
  rewind_metrics();
  return x.is_object() && x.contains("caller_state") ? x["caller_state"] : Json();
}

// Drops the metrics the interrupted run wrote after the checkpoint's step.
void Trainer::rewind_metrics() {
  if (out_dir_.empty()) return;
  const std::string metrics = out_dir_ + "/metrics.jsonl";
  std::ifstream in(metrics);
  std::string kept, line;
  for (int64_t lineno = 1; read_line_limited(in, line, size_t{16} << 20, "Trainer", metrics, lineno); ++lineno) {
    if (line.empty()) continue;
    try {
      if (parse_json(line, "Trainer", fmt::format("'{}' line {}", metrics, lineno)).value("step", int64_t{0}) > step_)
        continue;
    } catch (const Json::exception&) {
      continue;  // a torn last line of a killed run
    }
    kept += line + "\n";
  }
  write_file_atomic(metrics, kept);
}

bool Trainer::track_best(const Json& metrics) {
  if (options_.monitor.empty()) return false;
  std::vector<std::string> keys;
  for (const auto& [k, v] : metrics.items()) keys.push_back(k);
  check(metrics.contains(options_.monitor) && metrics[options_.monitor].is_number(), "Trainer",
        "trainer.monitor '{}' is not among the evaluation metrics of task '{}' ({})", options_.monitor, task_name_,
        fmt::join(keys, ", "));
  const double v = metrics[options_.monitor].get<double>();
  const bool better = std::isfinite(v) && (best_step_ == 0 || (options_.monitor_mode == "min" ? v < best_ : v > best_));
  if (better) {
    best_ = v, best_step_ = step_, evals_since_best_ = 0;
    if (!out_dir_.empty()) save_checkpoint(best_checkpoint_path());
    return false;
  }
  ++evals_since_best_;
  if (options_.early_stopping_patience > 0 && evals_since_best_ >= options_.early_stopping_patience) {
    stop_reason_ = fmt::format("{} has not improved for {} evaluations (best {:.6g} at step {})", options_.monitor,
                               evals_since_best_, best_, best_step_);
    return true;
  }
  return false;
}

}  // namespace hm::train
