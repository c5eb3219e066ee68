// `eval` and `grads`: a checkpoint of a run (last, best or a file), its task read from the
// checkpoint, evaluated or its gradients measured on the batch training would take next.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "harmonic/core/atomic_file.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/grad_inspect.h"
#include "harmonic/tools/train/grad_over_time.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/train_cli_args.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {
namespace {

// The task, config and checkpoint of an existing run: the config is the checkpoint's,
// updated by --config and --set.
struct LoadedRun {
  const TaskSpec* spec = nullptr;
  std::unique_ptr<Task> task;
  optim::CheckpointInfo info;
  Json config;
  std::string path;
  int64_t epoch = 0;  // the 1-based epoch of the checkpoint's last step (0 before any)
};

LoadedRun load_run(RunArgs& a, const char* fn) {
  if (!a.checkpoint.empty() && std::filesystem::is_directory(a.checkpoint)) {  // --checkpoint RUN_DIR: its last
    std::error_code ec;
    check(a.out.empty() || std::filesystem::equivalent(a.out, a.checkpoint, ec), fn,
          "--checkpoint {} is a run directory but --out names another one ({})", a.checkpoint, a.out);
    a.out = a.checkpoint, a.checkpoint = "last";
  }
  const bool named_file = !a.checkpoint.empty() && a.checkpoint != "last" && a.checkpoint != "best";
  if (a.out.empty() && named_file) {
    a.out = std::filesystem::path(a.checkpoint).parent_path().string();
    if (a.out.empty()) a.out = ".";
  }
  check(!a.out.empty(), fn, "give the run directory (--out DIR) or a checkpoint (--checkpoint PATH)");
  LoadedRun run;
  run.path = checkpoint_file(a.out, a.checkpoint);
  if (a.checkpoint == "best" && !std::filesystem::exists(run.path)) {
    // "train first" would mislead when the run exists but never kept a best checkpoint.
    const std::string last = checkpoint_file(a.out, "last");
    if (std::filesystem::exists(last)) {
      const Json trainer = optim::read_checkpoint_info(last).config.value("trainer", Json::object());
      check(!trainer.value("monitor", std::string()).empty(), fn,
            "no best checkpoint in '{}': the run was trained without trainer.monitor, so it keeps only its last "
            "checkpoint; use --checkpoint last, or train with --set trainer.monitor=val_loss",
            a.out);
      throw_error(fn, fmt::format("no best checkpoint in '{}' yet: trainer.monitor is '{}' but no evaluation has run "
                                  "(trainer.eval_every); use --checkpoint last",
                                  a.out, trainer.value("monitor", std::string())));
    }
  }
  if (!std::filesystem::exists(run.path)) {
    // A run directory that exists has other checkpoints to name; a missing one needs training.
    std::vector<std::string> kept;
    std::error_code ec;
    if (std::filesystem::is_directory(a.out, ec))
      for (const auto& e : std::filesystem::directory_iterator(a.out, ec))
        if (e.path().extension() == ".safetensors") kept.push_back(e.path().filename().string());
    std::sort(kept.begin(), kept.end());
    check(!kept.empty(), fn, "no checkpoint at '{}' (train first: train <task> --out {})", run.path, a.out);
    throw_error(fn, fmt::format("no checkpoint at '{}'; {} holds {}", run.path, a.out, fmt::join(kept, ", ")));
  }
  optim::CheckpointInfo head = optim::read_checkpoint_info(run.path);
  const std::string task = checkpoint_task(head);
  check(!task.empty(), fn, "'{}' names no task (not a trainer checkpoint?)", run.path);
  check(a.task.empty() || a.task == task, fn, "'{}' is a checkpoint of task '{}', not '{}'", run.path, task, a.task);
  run.spec = &find_task(task);
  run.config = resolve_config(head.config, a.config_file, a.sets);
  run.task = build_task(*run.spec, run.config, Device::parse(a.device));
  run.info = optim::load_checkpoint(run.path, {&run.task->model(), nullptr, run.task->generators()});
  const int64_t batch = run.info.extra.value("batch_in_epoch", int64_t{0});
  run.epoch = run.info.step == 0 ? 0 : (batch == 0 ? run.info.epoch : run.info.epoch + 1);
  return run;
}

// `grads --over-time`: d loss_t / d h0 against t on the batch training would take next.
int grads_over_time(const GradsArgs& a, LoadedRun& run, const data::Batch& batch, int64_t batch_index) {
  check(run.task->recurrent_probe() != nullptr, "grads",
        "task '{}' has no recurrent probe (Task::recurrent_probe), so --over-time cannot measure d loss_t / d h0",
        run.spec->name);
  check(a.window > 0, "grads", "--window must be positive, got {}", a.window);
  GradOverTime g = gradient_over_time(*run.task, batch, a.window);
  fmt::print("{} at step {} ({}): |d loss_t / d h0| over {} steps, batch {} of epoch {} ({} examples, state {})\n",
             run.spec->name, run.info.step, run.path, g.steps.size(), batch_index + 1, run.info.epoch + 1, g.batch,
             g.state_size);
  fmt::print("{}", format_table(g));
  const std::string path =
      a.json.empty() ? fmt::format("{}/grads_step{}_over_time.json", a.out, run.info.step) : a.json;
  Json j = to_json(g);
  j["task"] = run.spec->name;
  j["step"] = run.info.step;
  j["epoch"] = run.info.epoch + 1;  // the epoch of the measured batch
  j["batch"] = batch_index + 1;     // as in grads_step<N>.json; the batch size is "batch_size"
  j["checkpoint"] = run.path;
  write_file_atomic(path, j.dump(2) + "\n");
  fmt::print("written {}\n", path);
  if (!a.plot.empty()) {
    report::save(plot_over_time(g, fmt::format("{} step {}: d loss_t / d h0, {}-step means", run.spec->name,
                                               run.info.step, g.window)),
                 a.plot);
    fmt::print("written {}\n", a.plot);
  }
  return 0;
}

}  // namespace

int run_eval(RunArgs& a) {
  a.setup();
  LoadedRun run = load_run(a, "eval");
  Trainer trainer(*run.task, run.spec->name, run.config, "");
  trainer.log = nullptr;
  Json metrics = trainer.evaluate();
  fmt::print("{} at step {} (epoch {}), {}:\n", run.spec->name, run.info.step, run.epoch, run.path);
  for (const auto& [k, v] : metrics.items())
    fmt::print("  {:<20} {}\n", k, v.is_number_float() ? fmt::format("{:.6g}", v.get<double>()) : v.dump());
  const std::string path = fmt::format("{}/eval_step{}.json", a.out, run.info.step);
  write_file_atomic(
      path,
      Json{{"step", run.info.step}, {"epoch", run.epoch}, {"checkpoint", run.path}, {"metrics", metrics}}.dump(2) +
          "\n");
  fmt::print("written {}\n", path);
  return 0;
}

int run_grads(GradsArgs& a) {
  a.setup();
  LoadedRun run = load_run(a, "grads");
  // The batch training would take next.
  const data::DataLoader& loader = run.task->train_loader();
  const int64_t batch_index = run.info.extra.value("batch_in_epoch", int64_t{0});
  std::vector<int64_t> order = loader.order(run.info.epoch);
  const int64_t b = loader.options().batch_size;
  const int64_t begin = batch_index * b, end = std::min<int64_t>(begin + b, std::ssize(order));
  check(begin < end, "grads", "batch {} of epoch {} is empty", batch_index + 1, run.info.epoch + 1);
  data::Batch batch = loader.dataset().get_batch(std::vector<int64_t>(order.begin() + begin, order.begin() + end));
  if (a.over_time) return grads_over_time(a, run, batch, batch_index);

  GradReport report = gradient_report(*run.task, batch);
  fmt::print("{} at step {} ({}): gradients of batch {} of epoch {} ({} examples)\n", run.spec->name, run.info.step,
             run.path, batch_index + 1, run.info.epoch + 1, end - begin);
  fmt::print("{}", format_table(report));
  const std::string path = a.json.empty() ? fmt::format("{}/grads_step{}.json", a.out, run.info.step) : a.json;
  Json j = to_json(report);
  j["step"] = run.info.step;
  j["epoch"] = run.info.epoch + 1;  // the epoch of the measured batch
  j["batch"] = batch_index + 1;
  j["checkpoint"] = run.path;
  write_file_atomic(path, j.dump(2) + "\n");
  fmt::print("written {}\n", path);
  return 0;
}

}  // namespace hm::train
