// Training tasks: a model, its optimizer, its data and its loss, built from a JSON config.
// Tasks are registered by name (like the subcommands of tools/commands.h) and run by the
// generic Trainer (tools/train/trainer.h) behind `harmonic train|eval|grads <task>`.
//
// A task's config is its own keys plus the "trainer" section (TrainerOptions, shared by
// every task; a task's defaults may override trainer defaults) and "seed".
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/core/device.h"
#include "harmonic/data/loader.h"
#include "harmonic/nn/module.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/optim/optimizer.h"

namespace hm::train {

using Json = nlohmann::json;

class RecurrentProbe;  // tools/train/grad_over_time.h

class Task {
 public:
  virtual ~Task() = default;

  virtual nn::Module& model() = 0;
  virtual optim::Optimizer& optimizer() = 0;
  // The training batches; their order must depend only on (seed, epoch) so runs resume exactly.
  virtual const data::DataLoader& train_loader() = 0;
  // The scalar training loss of a batch already on the model's device (the trainer runs
  // backward and the optimizer step).
  virtual Tensor loss(const data::Batch& batch) = 0;
  // Held-out (test) metrics by name ("test_accuracy", ...), recorded as named. Called in
  // eval mode under no-grad at every evaluation (trainer.eval_every and the end); must not
  // draw from any checkpointed generator.
  virtual Json evaluate() = 0;
  // Metrics on a validation split held out of the training data ("loss", "accuracy"), which
  // the trainer records with a "val_" prefix; model selection (trainer.monitor) should
  // watch these, not the test metrics. Same calling rules as evaluate(). The default: no
  // validation split ({}).
  virtual Json validate() { return Json::object(); }
  // Generators besides hm::default_generator() whose state a checkpoint must carry (e.g.
  // dropout's).
  virtual optim::NamedGenerators generators() { return {}; }
  // A recurrent task's view for the gradient-over-time study (`grads --over-time`), owned by
  // the task; the default: none (nullptr).
  virtual RecurrentProbe* recurrent_probe() { return nullptr; }
  // What the progress line counts per second: the loader's items (examples, windows) by
  // default; a language model counts tokens, `per_item` of them in each window.
  struct Throughput {
    std::string unit = "items";
    int64_t per_item = 1;
  };
  virtual Throughput throughput() const { return {}; }
};

struct TaskSpec {
  std::string name;
  std::string description;
  Json defaults;  // the task's keys, "seed", and optional "trainer" overrides
  // Builds the task on `device` from a complete config (defaults already merged).
  std::function<std::unique_ptr<Task>(const Json& config, Device device)> make;
  // Overrides of `defaults` for a tiny run that goes through every part of the task (data,
  // loss, validation, evaluation) in seconds on any device: the suite trains, evaluates,
  // checkpoints and resumes every registered task with it on the CPU and on the emulated CUDA
  // device, and `harmonic train TASK --smoke` runs it. `scratch` is a directory for files the
  // run needs (rng-lm saves its tiny base model there). Empty: the defaults are small already.
  std::function<Json(const std::string& scratch)> smoke = {};
};

// Every registered task (the built-in ones first).
std::vector<TaskSpec>& tasks();
// The task called name; throws listing the registered names.
const TaskSpec& find_task(const std::string& name);
// The full default config: the trainer defaults, then the task's defaults on top.
Json default_config(const TaskSpec& spec);
// default_config with the task's smoke overrides on top (TaskSpec::smoke; files in scratch).
Json smoke_config(const TaskSpec& spec, const std::string& scratch);
// Seeds hm::default_generator() with config["seed"], then builds the task.
std::unique_ptr<Task> build_task(const TaskSpec& spec, const Json& config, Device device);

// spec with a fixed smoke config (TaskSpec::smoke).
inline TaskSpec with_smoke(TaskSpec spec, Json smoke) {
  spec.smoke = [smoke = std::move(smoke)](const std::string&) { return smoke; };
  return spec;
}

// Registers a task at static initialisation, from any file linked into the executable (or an
// OBJECT library, as tools/tasks/ and tools/studies/ are):  static TaskRegistration r{{...}};
struct TaskRegistration {
  explicit TaskRegistration(TaskSpec spec) { tasks().push_back(std::move(spec)); }
};

}  // namespace hm::train
