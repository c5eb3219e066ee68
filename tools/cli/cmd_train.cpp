// `harmonic train|eval|grads <task>`: train a registered task (tools/train/task.h) with the
// generic Trainer, evaluate its last checkpoint, or inspect one batch's gradients.
#include <fmt/format.h>

#include <filesystem>

#include "core/atomic_file.h"
#include "core/parallel.h"
#include "tools/cli/commands.h"
#include "tools/train/config.h"
#include "tools/train/grad_inspect.h"
#include "tools/train/trainer.h"

namespace hm::cli {
using namespace hm::train;
namespace {

// Options every one of the three subcommands takes.
struct RunArgs {
  std::string task;
  std::string out;
  std::string config_file;
  std::vector<std::string> sets;
  std::string device = "cpu";
  int threads = 0;

  void add(CLI::App* cmd, bool need_out) {
    cmd->add_option("task", task, "task name (harmonic train --list)");
    auto* o = cmd->add_option("--out", out, "run directory (train default: runs/<task>)");
    if (need_out) o->required();
    cmd->add_option("--set", sets, "override a config value: --set trainer.steps=100 (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--device", device, "cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--threads", threads, "CPU threads (0: all)");
  }
  void setup() const {
    if (threads > 0) set_num_threads(threads);
  }
  std::string checkpoint() const { return out + "/checkpoint_last.safetensors"; }
};

// The task, config and checkpoint of an existing run (for eval and grads): the config is
// the checkpoint's, updated by --set.
struct LoadedRun {
  const TaskSpec* spec = nullptr;
  std::unique_ptr<Task> task;
  optim::CheckpointInfo info;
};

LoadedRun load_run(const RunArgs& a, const char* fn) {
  check(!a.task.empty(), fn, "missing the task name (harmonic train --list shows them)");
  LoadedRun run;
  run.spec = &find_task(a.task);
  const std::string path = a.checkpoint();
  check(std::filesystem::exists(path), fn, "no checkpoint at '{}' (train first: harmonic train {} --out {})", path,
        a.task, a.out);
  optim::CheckpointInfo info = optim::read_checkpoint_info(path);
  check(info.extra.is_object() && info.extra.value("task", "") == a.task, fn,
        "'{}' is a checkpoint of task '{}', not '{}'", path,
        info.extra.is_object() ? info.extra.value("task", "?") : "?", a.task);
  Json config = resolve_config(info.config, a.config_file, a.sets);
  run.task = build_task(*run.spec, config, Device::parse(a.device));
  run.info = optim::load_checkpoint(path, {&run.task->model(), nullptr, run.task->generators()});
  return run;
}

// -- train --------------------------------------------------------------------------------------

struct TrainArgs : RunArgs {
  int64_t seed = -1;
  bool resume = false, force = false, list = false, print_config = false;
} train_args;

int run_train() {
  TrainArgs& a = train_args;
  if (a.list) {
    for (const TaskSpec& spec : tasks())
      fmt::print("{}\n  {}\n  config: {}\n\n", spec.name, spec.description, default_config(spec).dump());
    return 0;
  }
  check(!a.task.empty(), "train", "missing the task name (harmonic train --list shows them)");
  const TaskSpec& spec = find_task(a.task);
  if (a.out.empty()) a.out = "runs/" + a.task;
  a.setup();
  const std::string last = a.checkpoint();
  Json base = default_config(spec);
  if (a.resume) {
    check(std::filesystem::exists(last), "train", "--resume: no checkpoint at '{}'", last);
    check(a.seed < 0, "train", "--seed cannot change when resuming (the run's seed is in its checkpoint)");
    base = optim::read_checkpoint_info(last).config;
  } else {
    check(a.force || !std::filesystem::exists(last), "train",
          "'{}' already holds a run (checkpoint_last.safetensors): continue it with --resume, or start over with "
          "--force",
          a.out);
  }
  Json config = resolve_config(base, a.config_file, a.sets);
  if (a.seed >= 0) apply_override(config, fmt::format("seed={}", a.seed));
  if (a.print_config) {
    fmt::print("{}\n", config.dump(2));
    return 0;
  }
  std::unique_ptr<Task> task = build_task(spec, config, Device::parse(a.device));
  Trainer trainer(*task, spec.name, config, a.out);
  if (a.resume) trainer.resume(last);
  FitResult r = trainer.fit();
  return r.interrupted ? 130 : 0;  // 130: the shell's code for "ended by SIGINT"
}

Registration train_reg{{"train",
                        [](CLI::App& app) {
                          auto* cmd = app.add_subcommand("train",
                                                         "Train a registered task (checkpoints, metrics.jsonl, "
                                                         "Ctrl-C saves and stops)");
                          train_args.add(cmd, false);
                          cmd->add_option("--config", train_args.config_file, "JSON file of config values");
                          cmd->add_option("--seed", train_args.seed, "random seed (sets the config's seed)");
                          cmd->add_flag("--resume", train_args.resume, "continue from OUT/checkpoint_last.safetensors");
                          cmd->add_flag("--force", train_args.force, "start over in an OUT that holds a run");
                          cmd->add_flag("--list", train_args.list, "list the tasks and their default configs");
                          cmd->add_flag("--print-config", train_args.print_config,
                                        "print the resolved config and exit");
                        },
                        run_train}};

// -- eval ---------------------------------------------------------------------------------------

RunArgs eval_args;

int run_eval() {
  eval_args.setup();
  LoadedRun run = load_run(eval_args, "eval");
  Trainer trainer(*run.task, run.spec->name, run.info.config, "");
  trainer.log = nullptr;
  Json metrics = trainer.evaluate();
  fmt::print("{} at step {} (epoch {}):\n", run.spec->name, run.info.step, run.info.epoch);
  for (const auto& [k, v] : metrics.items())
    fmt::print("  {:<20} {}\n", k, v.is_number_float() ? fmt::format("{:.6g}", v.get<double>()) : v.dump());
  const std::string path = fmt::format("{}/eval_step{}.json", eval_args.out, run.info.step);
  write_file_atomic(path,
                    Json{{"step", run.info.step}, {"epoch", run.info.epoch}, {"metrics", metrics}}.dump(2) + "\n");
  fmt::print("written {}\n", path);
  return 0;
}

Registration eval_reg{{"eval",
                       [](CLI::App& app) {
                         auto* cmd = app.add_subcommand("eval", "Evaluate the last checkpoint of a run");
                         eval_args.add(cmd, true);
                       },
                       run_eval}};

// -- grads --------------------------------------------------------------------------------------

struct GradsArgs : RunArgs {
  std::string json;
} grads_args;

int run_grads() {
  GradsArgs& a = grads_args;
  a.setup();
  LoadedRun run = load_run(a, "grads");
  // The batch training would take next.
  const data::DataLoader& loader = run.task->train_loader();
  const int64_t batch_index = run.info.extra.value("batch_in_epoch", int64_t{0});
  std::vector<int64_t> order = loader.order(run.info.epoch);
  const int64_t b = loader.options().batch_size;
  const int64_t begin = batch_index * b, end = std::min<int64_t>(begin + b, std::ssize(order));
  check(begin < end, "grads", "batch {} of epoch {} is empty", batch_index, run.info.epoch);
  data::Batch batch = loader.dataset().get_batch(std::vector<int64_t>(order.begin() + begin, order.begin() + end));

  GradReport report = gradient_report(*run.task, batch);
  fmt::print("{} at step {}: gradients of batch {} of epoch {} ({} examples)\n", run.spec->name, run.info.step,
             batch_index, run.info.epoch, end - begin);
  fmt::print("{}", format_table(report));
  const std::string path = a.json.empty() ? fmt::format("{}/grads_step{}.json", a.out, run.info.step) : a.json;
  Json j = to_json(report);
  j["step"] = run.info.step;
  j["epoch"] = run.info.epoch;
  j["batch_in_epoch"] = batch_index;
  write_file_atomic(path, j.dump(2) + "\n");
  fmt::print("written {}\n", path);
  return 0;
}

Registration grads_reg{{"grads",
                        [](CLI::App& app) {
                          auto* cmd = app.add_subcommand(
                              "grads", "Per-parameter gradient norms of one batch at the last checkpoint");
                          grads_args.add(cmd, true);
                          cmd->add_option("--json", grads_args.json, "output file (default OUT/grads_step<N>.json)");
                        },
                        run_grads}};

}  // namespace
}  // namespace hm::cli
