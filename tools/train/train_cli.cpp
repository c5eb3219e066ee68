// `train`, `eval`, `grads`: the options shared by the three commands, the train command,
// and train_main. eval and grads themselves are in train_cli_inspect.cpp.
#include "harmonic/tools/train/train_cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>

#include "harmonic/core/build_info.h"
#include "harmonic/core/parallel.h"
#include "harmonic/nn/distributed/process_group.h"
#include "harmonic/tools/train/threads_option.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/did_you_mean.h"
#include "harmonic/tools/train/train_cli_args.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {
namespace {

std::unique_ptr<CommandArgs> g_args;  // the option values of the current App

// Whether the command line or its config file sets trainer.warmup_steps (to any value, the
// default's too): resolved once more over a base whose warmup no config can hold.
bool sets_warmup(Json base, const TrainArgs& a) {
  base["trainer"]["warmup_steps"] = -1;
  return resolve_config(base, a.config_file, a.shorthand_overrides())["trainer"]["warmup_steps"] != -1;
}

// `train --list`: one line per task, its length and what it trains.
std::string tasks_table() {
  size_t width = 4;
  for (const TaskSpec& spec : tasks()) width = std::max(width, spec.name.size());
  std::string out = fmt::format("{:<{}}  {:<11}  {}\n", "task", width, "length", "description");
  for (const TaskSpec& spec : tasks()) {
    const Json t = default_config(spec)["trainer"];
    const int64_t steps = t["steps"].get<int64_t>(), epochs = t["epochs"].get<int64_t>();
    const std::string length =
        steps > 0 ? fmt::format("{} steps", steps) : fmt::format("{} epoch{}", epochs, epochs == 1 ? "" : "s");
    out += fmt::format("{:<{}}  {:<11}  {}\n", spec.name, width, length, spec.description);
  }
  return out + "A task's default config: harmonic train TASK --print-config; all of them: train --list --json\n";
}

// `train --list --json`: [{"name", "description", "config"}, ...].
Json tasks_json() {
  Json out = Json::array();
  for (const TaskSpec& spec : tasks())
    out.push_back({{"name", spec.name}, {"description", spec.description}, {"config", default_config(spec)}});
  return out;
}

int run_train(TrainArgs& a) {
  if (a.list) {
    fmt::print("{}", a.json ? tasks_json().dump(2) + "\n" : tasks_table());
    return 0;
  }
  check(!a.json, "train", "--json goes with --list (the tasks as JSON)");
  check(!a.task.empty(), "train", "missing the task name (train --list shows them)");
  const TaskSpec& spec = find_task(a.task);
  if (a.out.empty()) a.out = "runs/" + a.task;
  a.setup();
  const std::string last = checkpoint_file(a.out, "last");
  Json base = default_config(spec);
  check(a.profile >= 0, "train", "--profile must be >= 0 steps, got {}", a.profile);
  if (a.smoke && !a.resume) base = smoke_config(spec, a.out + "/smoke_files");
  if (a.resume) {
    check(std::filesystem::exists(last), "train", "--resume: no checkpoint at '{}'", last);
    check(a.seed < 0, "train", "--seed cannot change when resuming (the run's seed is in its checkpoint)");
    check(!a.force, "train", "--resume and --force contradict each other (--force deletes the run)");
    const optim::CheckpointInfo info = optim::read_checkpoint_info(last);
    // Before the config is read as this task's: another task's config fails on a missing key.
    const std::string task = checkpoint_task(info);
    check(task == a.task, "train", "--resume: '{}' is a checkpoint of {}, not of '{}'", last,
          task.empty() ? std::string("no task (not a trainer checkpoint?)") : "task '" + task + "'", a.task);
    base = info.config;
  }
  Json config = resolve_config(base, a.config_file, a.shorthand_overrides());
  if (a.seed >= 0) apply_override(config, fmt::format("seed={}", a.seed));
  if (!a.precision.empty()) apply_override(config, "trainer.precision=" + a.precision);
  if (a.resume) check_resume_config(base, config, default_config(find_task(a.task)));  // before building the task
  if (a.print_config) {
    fmt::print("{}\n", config.dump(2));
    return 0;
  }
  // Under mpirun every rank runs this command; rank 0 alone owns the run directory and the log.
  const Device device = Device::parse(a.device);
  std::shared_ptr<dist::ProcessGroup> host = dist::world();
  const bool lead = host->rank() == 0;
  dist::check_same_on_all_ranks(*host, fmt::format("{} {} {}", config.dump(), a.out, a.resume),
                                "resolved config (with --out and --resume)");
  if (!a.resume && lead) prepare_run_dir(a.out, a.force);
  std::unique_ptr<Task> task = build_task(spec, config, device);
  if (!a.resume && !sets_warmup(base, a)) {
    const std::string scaled = scale_default_warmup(config, base, task->train_loader().num_batches());
    if (!scaled.empty() && lead) fmt::print("{}\n", scaled);
  }
  Trainer trainer(*task, spec.name, config, lead ? a.out : "");
  if (!lead) trainer.log = nullptr;
  trainer.profile_steps = a.profile;
  trainer.process_group = dist::process_group_for(device);
  if (a.resume) trainer.resume(last);  // every rank reads it (the run directory must be shared)
  FitResult r = trainer.fit();
  return r.interrupted ? 130 : 0;  // 130: the shell's code for "ended by SIGINT"
}

}  // namespace

std::vector<std::string> TrainArgs::shorthand_overrides() const {
  check(steps.empty() || epochs.empty(), "train", "give --steps or --epochs, not both (--steps {}, --epochs {})", steps,
        epochs);
  std::vector<std::string> out = sets;  // the shorthands come after --set, so they win
  if (!steps.empty()) out.push_back("trainer.steps=" + steps);
  if (!epochs.empty()) out.insert(out.end(), {"trainer.epochs=" + epochs, "trainer.steps=0"});  // steps > 0 would win
  if (!lr.empty()) out.push_back("lr=" + lr);
  if (!batch_size.empty()) out.push_back("batch_size=" + batch_size);
  if (!tensorboard.empty()) out.push_back("trainer.tensorboard=" + tensorboard);
  return out;
}

void RunArgs::add(CLI::App* cmd, bool inspect) {
  cmd->add_option(
      "task", task,
      inspect ? "task name (optional: read from the checkpoint; checked when given)" : "task name (train --list)");
  cmd->add_option("--out", out, inspect ? "run directory" : "run directory (default runs/<task>)");
  if (inspect)
    cmd->add_option("--checkpoint", checkpoint,
                    "last (default), best, a checkpoint file (then --out defaults to "
                    "its directory), or a run directory (its last checkpoint)");
  cmd->add_option("--config", config_file, "JSON file of config values");
  cmd->add_option("--set", sets, "override a config value: --set trainer.steps=100 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--device", device, "cpu, cuda or cuda:N")->capture_default_str();
  add_threads_option(cmd, threads);
}

void RunArgs::setup() const {
  if (threads > 0) set_num_threads(threads);
}

std::string checkpoint_file(const std::string& out_dir, const std::string& which) {
  if (which.empty() || which == "last") return Trainer::last_checkpoint_in(out_dir);
  if (which == "best") return Trainer::best_checkpoint_in(out_dir);
  return which;
}

void prepare_run_dir(const std::string& out_dir, bool force) {
  const std::vector<std::string> old = run_files(out_dir);
  if (old.empty()) return;
  check(force, "train",
        "'{}' already holds a run ({}): continue it with --resume, or delete it and start over with --force", out_dir,
        fmt::join(old, ", "));
  for (const std::string& f : old) std::filesystem::remove(f);
}

void add_train_commands(CLI::App& app) {
  g_args = std::make_unique<CommandArgs>();
  TrainArgs& t = g_args->train;
  auto* cmd =
      app.add_subcommand("train", "Train a registered task (checkpoints, metrics.jsonl, Ctrl-C saves and stops)");
  t.add(cmd, false);
  cmd->add_option("--seed", t.seed, "random seed (sets the config's seed)");
  cmd->add_option("--precision", t.precision, "fp32, bf16 (bf16 GEMMs) or bf16-activations (their products stay bf16); CUDA only; sets trainer.precision");
  cmd->add_flag("--resume", t.resume, "continue from OUT/checkpoint_last.safetensors");
  cmd->add_flag("--force", t.force, "delete the previous run in OUT (checkpoints, metrics) and start over");
  cmd->add_flag("--list", t.list, "list the tasks: a table (name, length, description)");
  cmd->add_flag("--json", t.json, "with --list: the tasks and their default configs as JSON");
  cmd->add_flag("--print-config", t.print_config, "print the resolved config and exit");
  cmd->add_flag("--smoke", t.smoke,
                "a tiny run of the task (its smoke config: every part in seconds, on any device), before --config/--set");
  cmd->add_option("--steps", t.steps, "training steps (--set trainer.steps=N)");
  cmd->add_option("--epochs", t.epochs, "train for N epochs (--set trainer.epochs=N --set trainer.steps=0)");
  cmd->add_option("--lr", t.lr, "learning rate (--set lr=X)");
  cmd->add_option("--batch-size", t.batch_size, "batch size (--set batch_size=N)");
  cmd->add_option("--tensorboard", t.tensorboard,
                  "also write TensorBoard event files to DIR: metrics as scalars, the config as text "
                  "(--set trainer.tensorboard=DIR)");
  cmd->add_option("--profile", t.profile,
                  "print a per-kernel and per-phase time table of N steps (after one warm-up step); also OUT/profile.json")
      ->check(CLI::NonNegativeNumber);

  auto* eval = app.add_subcommand("eval", "Evaluate a checkpoint of a run (validation and test metrics)");
  g_args->eval.add(eval, true);
  auto* grads = app.add_subcommand("grads", "Per-parameter gradient norms of one batch at a checkpoint");
  g_args->grads.add(grads, true);
  grads->add_option("--json", g_args->grads.json,
                    "output file (default OUT/grads_step<N>.json, OUT/grads_step<N>_over_time.json with --over-time)");
  grads->add_flag("--over-time", g_args->grads.over_time,
                  "norms of d loss_t / d h0 against the step t instead (recurrent tasks; FRU paper Figure 5)");
  grads->add_option("--window", g_args->grads.window, "with --over-time: steps averaged per window")
      ->capture_default_str();
  grads->add_option("--plot", g_args->grads.plot, "with --over-time: also a plot of the window averages (.svg/.png)");
}

int run_train_commands(CLI::App& app) {
  check(g_args != nullptr, "run_train_commands", "call add_train_commands first");
  if (app.got_subcommand("train")) return run_train(g_args->train);
  if (app.got_subcommand("eval")) return run_eval(g_args->eval);
  if (app.got_subcommand("grads")) return run_grads(g_args->grads);
  return -1;
}

int train_main(int argc, char** argv) {
  CLI::App app{"Train, evaluate and inspect registered tasks (Harmonic)"};
  app.set_version_flag("--version", version_string());
  app.require_subcommand(1);
  add_train_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    const std::string unknown = unknown_options_message(app);
    if (unknown.empty()) return app.exit(e);
    fmt::print(stderr, "error: {}\n", unknown);  // CLI11 would say only "arguments were not expected"
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return run_train_commands(app);
  } catch (const std::exception& e) {
    dist::abort_job_on_error(e.what());  // several ranks: names this one and stops the others
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}

}  // namespace hm::train
