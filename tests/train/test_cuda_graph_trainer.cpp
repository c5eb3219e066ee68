// trainer.cuda_graph on cuda:0 (a GPU, else the emulated device under ctest's
// HARMONIC_EMULATE_CUDA=1): for every registered task's smoke config, a run that captures its
// step and replays it gives the eager run's losses and final parameters bit for bit, and the
// tasks that capture are exactly those listed; so do steps of several micro-batches
// (trainer.accumulate), across epochs whose last group is short or holds a short batch.
// Data-parallel runs with graphs are held against eager ones in tests/distributed.
#include <doctest/doctest.h>

#include <cmath>

#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/data/dataset.h"
#include "harmonic/nn/activation.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/sequential.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/task.h"
#include "harmonic/tools/train/train_cli.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/data_helpers.h"
#include "tests/device_harness.h"
#include "tests/trainer_helpers.h"

namespace hm::test {
namespace {

struct GraphRun {
  std::vector<double> losses, params;
  int64_t replays = 0;
  std::string fallback;
};

// `steps` steps of the task on cuda:0 with trainer.cuda_graph=mode.
GraphRun graph_trainer_run(train::Task& task, const std::string& name, train::Json config, const std::string& mode,
                           int64_t steps) {
  train::apply_override(config, fmt::format("trainer.steps={}", steps));
  train::apply_override(config, "trainer.cuda_graph=" + mode);
  train::Trainer trainer(task, name, config, "");
  trainer.log = nullptr;
  GraphRun run;
  trainer.on_step = [&](const train::StepRecord& s) { run.losses.push_back(s.loss); };
  trainer.fit();
  for (const auto& [key, t] : task.model().state_dict())
    for (double v : t.to_vector()) run.params.push_back(v);
  run.replays = trainer.graph_replays();
  run.fallback = trainer.graph_fallback();
  return run;
}

// The same for a registered task's smoke config with the given overrides.
GraphRun graph_trainer_run(const train::TaskSpec& spec, const std::string& mode, int64_t steps,
                           const std::vector<std::string>& sets = {}) {
  ScratchDir dir;
  train::Json config = train::smoke_config(spec, dir / "files");
  for (const std::string& set : sets) train::apply_override(config, set);
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
  return graph_trainer_run(*task, spec.name, config, mode, steps);
}

// Regression through dropout on `examples` rows in batches of 2 (the last one short when the
// count is odd), with AdamW: the dropout stream, the optimizer's moments and step counts pass
// between eager and replayed steps.
class DropoutRegressionTask : public train::Task {
 public:
  DropoutRegressionTask(int64_t examples, Device device) : dropout_gen_(5) {
    Generator gen(3);
    model_ = std::make_shared<nn::Sequential>();
    model_->add(std::make_shared<nn::Linear>(4, 16, true, &gen));
    model_->add(std::make_shared<nn::Tanh>());
    model_->add(std::make_shared<nn::Dropout>(0.3, &dropout_gen_));
    model_->add(std::make_shared<nn::Linear>(16, 1, true, &gen));
    model_->to(device);
    Tensor x = randn({examples, 4}, {}, &gen);  // (examples, 4)
    Tensor y = randn({examples, 1}, {}, &gen);  // (examples, 1)
    loader_ = std::make_unique<data::DataLoader>(std::make_shared<data::TensorDataset>(x, y),
                                                 data::LoaderOptions{.batch_size = 2, .prefetch = false});
    optimizer_ = std::make_unique<optim::AdamW>(model_->named_parameters(), optim::AdamOptions{.lr = 0.01});
  }
  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return mse_loss(model_->forward(b.input), b.target); }
  train::Json evaluate() override { return train::Json::object(); }
  optim::NamedGenerators generators() override { return {{"dropout", &dropout_gen_}}; }

 private:
  Generator dropout_gen_;
  std::shared_ptr<nn::Sequential> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::AdamW> optimizer_;
};

GraphRun dropout_regression_run(int64_t examples, int64_t accumulate, const std::string& mode, int64_t steps) {
  DropoutRegressionTask task(examples, Device::cuda(0));
  train::Json config = ScriptedTask::config({fmt::format("trainer.accumulate={}", accumulate),
                                             "trainer.lr_schedule=cosine", "trainer.clip_grad_norm=0.5"});
  return graph_trainer_run(task, "test-dropout-regression", config, mode, steps);
}

// The tasks whose smoke step captures on cuda:0 (every registered task but the test-only ones).
bool graph_expected_capture(const std::string& name) {
  for (const char* n : {"fourier-toy", "mlp-spirals", "audio-bpm", "fashion-mlp", "fashion-vit", "fru-image",
                        "fru-synthetic", "fru-text", "kjv-lm", "rng-lm", "arcade-dt", "chronos"})
    if (name == n) return true;
  return false;
}

}  // namespace

TEST_CASE("[cuda] trainer.cuda_graph=auto trains every registered task bit for bit as eager steps do") {
  announce_targets();
  if (!cuda::available()) return;
  constexpr int64_t kSteps = 5;  // 2 eager warm-up steps, the captured step, 2 replays
  std::string captured, fell_back;
  for (const train::TaskSpec& spec : train::tasks()) {
    CAPTURE(spec.name);
    if (test_only(spec.name) || !data_available_for(spec.name)) continue;
    const GraphRun eager = graph_trainer_run(spec, "off", kSteps);
    const GraphRun graphed = graph_trainer_run(spec, "auto", kSteps);
    CHECK(eager.replays == 0);
    CHECK(graphed.losses == eager.losses);
    CHECK(graphed.params == eager.params);
    CHECK_MESSAGE(graphed.fallback.empty() == graph_expected_capture(spec.name),
                  (graphed.fallback.empty() ? "captured, but not listed as capturing" : graphed.fallback));
    if (graphed.fallback.empty()) {
      CHECK(graphed.replays > 0);
      captured += " " + spec.name;
    } else {
      CHECK(graphed.replays == 0);
      fell_back += fmt::format("\n  {}: {}", spec.name, graphed.fallback);
    }
  }
  MESSAGE("captured:" << captured);
  MESSAGE("eager (auto fell back):" << fell_back);
}

TEST_CASE("[cuda] trainer.cuda_graph with trainer.accumulate replays whole steps bit for bit as eager steps") {
  announce_targets();
  if (!cuda::available()) return;
  // mlp-spirals' smoke epoch is 5 batches of 32 (150 points, the last batch 22): with 2
  // micro-batches a step, the epoch's third step is its short last group; with 3, the second
  // (2 batches, one of them short). 8 steps cross into the third (k = 2) or fourth epoch.
  // kjv-lm (dropout in every layer) stays inside its first epoch.
  for (const char* name : {"mlp-spirals", "kjv-lm"})
    for (int64_t k : {2, 3}) {
      CAPTURE(name);
      CAPTURE(k);
      if (!data_available_for(name)) continue;
      const train::TaskSpec& spec = train::find_task(name);
      const std::vector<std::string> sets = {fmt::format("trainer.accumulate={}", k)};
      const int64_t steps = std::string(name) == "kjv-lm" ? 5 : 8;
      const GraphRun eager = graph_trainer_run(spec, "off", steps, sets);
      // auto would fall back where on raises: neither may happen.
      const GraphRun graphed = graph_trainer_run(spec, k == 2 ? "auto" : "on", steps, sets);
      REQUIRE(eager.losses.size() == static_cast<size_t>(steps));
      CHECK(graphed.losses == eager.losses);
      CHECK(graphed.params == eager.params);
      CHECK(graphed.fallback.empty());
      CHECK(graphed.replays > 0);
    }
}

TEST_CASE("[cuda] trainer.cuda_graph with trainer.accumulate: short groups and short batches run eagerly between "
          "replays, dropout and optimizer state carried") {
  announce_targets();
  if (!cuda::available()) return;
  // 13 rows: 7 batches, the last of 1 row, so each epoch ends with a short group (k = 2: 1
  // batch, k = 3: 1 batch). 11 rows: 6 batches, so each epoch's last group is full but holds the
  // short batch, whose held batches run eagerly.
  struct Case {
    int64_t examples, k, steps, replays;
  };
  // replays: the steps after the 2 eager warm-up steps that are full groups of full batches.
  for (const Case c : {Case{13, 2, 12, 7}, Case{13, 3, 9, 4}, Case{11, 2, 9, 4}, Case{11, 3, 6, 2}}) {
    CAPTURE(c.examples);
    CAPTURE(c.k);
    const GraphRun eager = dropout_regression_run(c.examples, c.k, "off", c.steps);
    const GraphRun graphed = dropout_regression_run(c.examples, c.k, "on", c.steps);
    REQUIRE(eager.losses.size() == static_cast<size_t>(c.steps));
    CHECK(graphed.losses == eager.losses);
    CHECK(graphed.params == eager.params);
    CHECK(graphed.fallback.empty());
    CHECK(graphed.replays == c.replays);
  }
}

TEST_CASE("[cuda] trainer.cuda_graph=on names what prevents the capture") {
  announce_targets();
  if (!cuda::available()) return;
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  ScratchDir dir;
  train::Json config = train::smoke_config(spec, dir / "files");
  train::apply_override(config, "trainer.steps=4");
  train::apply_override(config, "trainer.cuda_graph=on");
  // A host read inside the step (the loss read back to check it), which no graph can hold.
  class ReadingTask : public train::Task {
   public:
    explicit ReadingTask(std::unique_ptr<train::Task> inner) : inner_(std::move(inner)) {}
    nn::Module& model() override { return inner_->model(); }
    optim::Optimizer& optimizer() override { return inner_->optimizer(); }
    const data::DataLoader& train_loader() override { return inner_->train_loader(); }
    Tensor loss(const data::Batch& b) override {
      Tensor l = inner_->loss(b);
      check(std::isfinite(l.item<double>()), "ReadingTask", "non-finite loss");
      return l;
    }
    train::Json evaluate() override { return inner_->evaluate(); }

   private:
    std::unique_ptr<train::Task> inner_;
  };
  ReadingTask task(train::build_task(spec, config, Device::cuda(0)));
  train::Trainer trainer(task, spec.name, config, "");
  trainer.log = nullptr;
  CHECK_THROWS_WITH_AS(trainer.fit(), doctest::Contains("trainer.cuda_graph=on: task 'mlp-spirals' cannot run its step "
                                                        "as a CUDA graph: capturing the step failed"),
                       Error);
}

TEST_CASE("trainer.cuda_graph takes off, on or auto") {
  train::Json c = train::default_config(train::find_task("mlp-spirals"));
  CHECK(train::TrainerOptions::from_json(c["trainer"]).cuda_graph == "off");
  CHECK_FALSE(train::TrainerOptions::from_json(c["trainer"]).to_json().contains("cuda_graph"));
  train::apply_override(c, "trainer.cuda_graph=auto");
  CHECK(train::TrainerOptions::from_json(c["trainer"]).to_json()["cuda_graph"] == "auto");
  train::apply_override(c, "trainer.cuda_graph=maybe");
  CHECK_THROWS_WITH_AS(train::TrainerOptions::from_json(c["trainer"]), doctest::Contains("'maybe' is not off, on or auto"),
                       Error);
}

}  // namespace hm::test
