// TrainerOptions (the "trainer" config section), the keys a resumed run may change, task
// construction and the files that make up a run directory.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harmonic/ops/autocast.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {

Json TrainerOptions::to_json() const {
  Json j = {{"steps", steps},
            {"epochs", epochs},
            {"accumulate", accumulate},
            {"log_every", log_every},
            {"eval_every", eval_every},
            {"checkpoint_every", checkpoint_every},
            {"keep_checkpoints", keep_checkpoints},
            {"clip_grad_norm", clip_grad_norm},
            {"lr_schedule", lr_schedule},
            {"warmup_steps", warmup_steps},
            {"end_lr_factor", end_lr_factor},
            {"lr_decay", lr_decay},
            {"lr_decay_every", lr_decay_every},
            {"monitor", monitor},
            {"monitor_mode", monitor_mode},
            {"early_stopping_patience", early_stopping_patience},
            {"precision", precision},
            {"ddp_bucket_mb", ddp_bucket_mb},
            {"ddp_overlap", ddp_overlap},
            {"dist_timeout", dist_timeout}};
  if (checkpoint_seconds != late_keys().at("checkpoint_seconds").get<double>())
    j["checkpoint_seconds"] = checkpoint_seconds;
  if (!tensorboard.empty()) j["tensorboard"] = tensorboard;
  if (test_metrics != late_keys().at("test_metrics").get<std::string>()) j["test_metrics"] = test_metrics;
  if (cuda_graph != late_keys().at("cuda_graph").get<std::string>()) j["cuda_graph"] = cuda_graph;
  return j;
}

const Json& TrainerOptions::late_keys() {
  static const Json keys = {{"checkpoint_seconds", TrainerOptions{}.checkpoint_seconds},  // rng-lm, fourier-toy
                            {"tensorboard", TrainerOptions{}.tensorboard},
                            {"test_metrics", TrainerOptions{}.test_metrics},
                            {"cuda_graph", TrainerOptions{}.cuda_graph}};
  return keys;
}

TrainerOptions TrainerOptions::from_json(const Json& j) {
  TrainerOptions o;
  // Keys added after the first checkpoints were written keep their defaults when absent.
  auto get = [&]<class T>(const char* key, T& field, bool required) {
    if (!required && !j.contains(key)) return;
    field = j.at(key).get<T>();
  };
  try {
    get("steps", o.steps, true);
    get("epochs", o.epochs, true);
    get("accumulate", o.accumulate, false);
    get("log_every", o.log_every, true);
    get("eval_every", o.eval_every, true);
    get("checkpoint_every", o.checkpoint_every, true);
    get("checkpoint_seconds", o.checkpoint_seconds, false);
    get("keep_checkpoints", o.keep_checkpoints, true);
    get("clip_grad_norm", o.clip_grad_norm, true);
    get("lr_schedule", o.lr_schedule, true);
    get("warmup_steps", o.warmup_steps, true);
    get("end_lr_factor", o.end_lr_factor, true);
    get("lr_decay", o.lr_decay, false);
    get("lr_decay_every", o.lr_decay_every, false);
    get("monitor", o.monitor, false);
    get("monitor_mode", o.monitor_mode, false);
    get("early_stopping_patience", o.early_stopping_patience, false);
    get("precision", o.precision, false);
    get("ddp_bucket_mb", o.ddp_bucket_mb, false);
    get("ddp_overlap", o.ddp_overlap, false);
    get("dist_timeout", o.dist_timeout, false);
    get("tensorboard", o.tensorboard, false);
    get("test_metrics", o.test_metrics, false);
    get("cuda_graph", o.cuda_graph, false);
  } catch (const Json::exception& e) {
    throw_error("Trainer", fmt::format("bad trainer section {}: {}", j.dump(), e.what()));
  }
  check(o.steps >= 0 && o.epochs >= 0 && o.warmup_steps >= 0, "Trainer",
        "trainer.steps, trainer.epochs and trainer.warmup_steps must be >= 0");
  check(o.accumulate >= 1, "Trainer", "trainer.accumulate must be >= 1, got {}", o.accumulate);
  check(o.log_every >= 1, "Trainer", "trainer.log_every must be >= 1, got {}", o.log_every);
  check(o.eval_every >= 0 && o.checkpoint_every >= 0, "Trainer", "eval_every/checkpoint_every must be >= 0");
  check(o.checkpoint_seconds >= 0 && std::isfinite(o.checkpoint_seconds), "Trainer",
        "trainer.checkpoint_seconds must be a finite number >= 0, got {}", o.checkpoint_seconds);
  check(o.clip_grad_norm >= 0, "Trainer", "trainer.clip_grad_norm must be >= 0, got {}", o.clip_grad_norm);
  check(o.lr_schedule == "constant" || o.lr_schedule == "cosine" || o.lr_schedule == "linear" ||
            o.lr_schedule == "staircase",
        "Trainer", "trainer.lr_schedule '{}' is not one of constant, cosine, linear, staircase", o.lr_schedule);
  check(o.lr_decay > 0 && o.lr_decay_every >= 1, "Trainer",
        "trainer.lr_decay must be > 0 and trainer.lr_decay_every >= 1, got {} and {}", o.lr_decay, o.lr_decay_every);
  check(o.monitor_mode == "min" || o.monitor_mode == "max", "Trainer", "trainer.monitor_mode '{}' is not min or max",
        o.monitor_mode);
  check(o.early_stopping_patience >= 0, "Trainer", "trainer.early_stopping_patience must be >= 0, got {}",
        o.early_stopping_patience);
  check(o.test_metrics == "end" || o.test_metrics == "every", "Trainer", "trainer.test_metrics '{}' is not end or every",
        o.test_metrics);
  // Selecting a checkpoint (or stopping) on test metrics would fit the test split.
  check(o.monitor.empty() || o.monitor.starts_with("val_") || o.test_metrics == "every", "Trainer",
        "trainer.monitor '{}' is not a validation metric (val_...): the test metrics are computed at the end only "
        "(trainer.test_metrics=end); monitor a val_ metric, or set trainer.test_metrics=every to select on the "
        "test split knowingly",
        o.monitor);
  check(o.early_stopping_patience == 0 || !o.monitor.empty(), "Trainer",
        "trainer.early_stopping_patience needs trainer.monitor (the metric to watch, e.g. val_loss)");
  autocast_for_precision(o.precision, "Trainer");  // throws for an unknown precision
  check(o.cuda_graph == "off" || o.cuda_graph == "on" || o.cuda_graph == "auto", "Trainer",
        "trainer.cuda_graph '{}' is not off, on or auto", o.cuda_graph);
  check(o.ddp_bucket_mb > 0, "Trainer", "trainer.ddp_bucket_mb must be > 0, got {}", o.ddp_bucket_mb);
  return o;
}

// What a resumed run may change. Safe means the new value takes effect from the resumed step
// without invalidating the checkpoint: lengths, periods, output files, the monitored metric,
// and values applied every step (clipping, schedule, precision). "lr" is the task's
// top-level lr: Trainer::resume rescales every parameter group by new / old lr. Everything
// else (model shape, data, seed, batch size, accumulate, optimizer hyperparameters the task
// baked into its objects) would be ignored or break the exact resume, so it is refused.
const std::vector<std::string>& resume_safe_keys() {
  static const std::vector<std::string> keys = {"trainer.steps",
                                                "trainer.epochs",
                                                "trainer.log_every",
                                                "trainer.eval_every",
                                                "trainer.test_metrics",
                                                "trainer.checkpoint_every",
                                                "trainer.checkpoint_seconds",
                                                "trainer.keep_checkpoints",
                                                "trainer.clip_grad_norm",
                                                "trainer.lr_schedule",
                                                "trainer.warmup_steps",
                                                "trainer.end_lr_factor",
                                                "trainer.lr_decay",
                                                "trainer.lr_decay_every",
                                                "trainer.monitor",
                                                "trainer.monitor_mode",
                                                "trainer.early_stopping_patience",
                                                "trainer.precision",
                                                "trainer.ddp_bucket_mb",
                                                "trainer.tensorboard",
                                                "trainer.cuda_graph",
                                                "trainer.ddp_overlap",
                                                "trainer.dist_timeout",
                                                "lr"};
  return keys;
}

std::string scale_default_warmup(Json& config, const Json& task_config, int64_t batches_per_epoch) {
  const TrainerOptions run = TrainerOptions::from_json(config.at("trainer"));
  const TrainerOptions task = TrainerOptions::from_json(task_config.at("trainer"));
  auto length = [&](const TrainerOptions& o) {
    return o.steps > 0 ? o.steps : o.epochs * ((batches_per_epoch + o.accumulate - 1) / o.accumulate);
  };
  const int64_t steps = length(run), task_steps = length(task);
  if (run.warmup_steps == 0 || run.warmup_steps != task.warmup_steps || steps >= task_steps) return "";
  const double share = static_cast<double>(run.warmup_steps) / static_cast<double>(task_steps);
  const int64_t warmup =
      std::clamp<int64_t>(std::llround(share * static_cast<double>(steps)), 0, std::max<int64_t>(steps - 1, 0));
  if (warmup == run.warmup_steps) return "";
  config["trainer"]["warmup_steps"] = warmup;
  return fmt::format("trainer.warmup_steps: {} -> {}, the task's {} of {} steps scaled to this run's {} (set "
                     "trainer.warmup_steps to choose it)",
                     run.warmup_steps, warmup, run.warmup_steps, task_steps, steps);
}

std::string checkpoint_task(const optim::CheckpointInfo& info) {
  const Json& x = info.extra;
  return x.is_object() && x.contains("task") && x["task"].is_string() ? x["task"].get<std::string>() : "";
}

void check_resume_config(const Json& checkpoint_config, const Json& config, const Json& task_defaults) {
  const Json old_flat = checkpoint_config.flatten(), new_flat = config.flatten();
  const Json default_flat = task_defaults.is_object() ? task_defaults.flatten() : Json::object();
  auto dotted = [](const std::string& pointer) {  // "/trainer/steps" -> "trainer.steps"
    std::string key = pointer.substr(1);
    std::replace(key.begin(), key.end(), '/', '.');
    return key;
  };
  const auto& safe = resume_safe_keys();
  auto refuse = [&](const std::string& key, const std::string& was, const std::string& now) {
    throw_error("resume", fmt::format("cannot change '{}' when resuming (checkpoint {}, asked {}): it is fixed for "
                                      "the run; start a new run (--force or another --out). Resume may change: {}",
                                      key, was, now, fmt::join(safe, ", ")));
  };
  for (const auto& [pointer, v] : new_flat.items()) {
    const std::string key = dotted(pointer);
    if (std::find(safe.begin(), safe.end(), key) != safe.end()) continue;
    if (!old_flat.contains(pointer)) {
      // A key newer than the checkpoint is fine at its default.
      if (key.starts_with("trainer.") && TrainerOptions{}.to_json().value(key.substr(8), Json()) == v) continue;
      if (default_flat.contains(pointer) && default_flat[pointer] == v) continue;
      refuse(key, "absent", v.dump());
    }
    if (old_flat[pointer] != v) refuse(key, old_flat[pointer].dump(), v.dump());
  }
}

std::vector<std::string> run_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "config.json" || name == "metrics.jsonl" ||
        (name.starts_with("checkpoint_") && name.ends_with(".safetensors")) ||
        (name.starts_with("eval_step") && name.ends_with(".json")) ||
        (name.starts_with("grads_step") && name.ends_with(".json")))
      out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hm::train
