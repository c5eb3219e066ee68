// Tests of the trainer loop's options: gradient accumulation, the validation split and its
// "val_" metrics, the best checkpoint, early stopping, precision, on_eval.
#include <filesystem>

#include "harmonic/optim/checkpoint.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;
namespace fs = std::filesystem;

namespace {

// Trains mlp-spirals (150 points) with the given overrides; returns the parameters and
// the step records.
std::pair<std::vector<double>, std::vector<StepRecord>> train_spirals(const std::vector<std::string>& sets) {
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(1);
  for (const std::string& s : sets) apply_override(c, s);
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  std::vector<StepRecord> steps;
  t.on_step = [&](const StepRecord& r) { steps.push_back(r); };
  t.fit();
  return {flat_params(task->model()), steps};
}

}  // namespace

TEST_CASE("trainer accumulate: 2 micro-batches of 25 give the parameters of 1 batch of 50") {
  // The loader's order depends only on (seed, epoch), so batch j of 50 holds micro-batches
  // 2j and 2j+1 of 25; the mean of two equal-size mean losses is the mean over 50.
  auto [big, big_steps] = train_spirals({"batch_size=50", "trainer.steps=7"});
  auto [acc, acc_steps] = train_spirals({"batch_size=25", "trainer.accumulate=2", "trainer.steps=7"});
  REQUIRE(big_steps.size() == 7);
  REQUIRE(acc_steps.size() == 7);
  for (size_t i = 0; i < 7; ++i) {
    CHECK(acc_steps[i].items == 50);
    CHECK(acc_steps[i].epoch == big_steps[i].epoch);  // 3 steps per epoch in both
    CHECK(acc_steps[i].loss == doctest::Approx(big_steps[i].loss).epsilon(1e-5));
    CHECK(acc_steps[i].grad_norm == doctest::Approx(big_steps[i].grad_norm).epsilon(1e-4));
  }
  CHECK(big_steps[6].epoch == 3);
  REQUIRE(big.size() == acc.size());
  double worst = 0;
  for (size_t i = 0; i < big.size(); ++i) worst = std::max(worst, std::fabs(big[i] - acc[i]) / (1 + std::fabs(big[i])));
  CHECK(worst < 1e-5);  // float32 summation order differs
}

TEST_CASE("trainer accumulate: an epoch's partial last group, steps per epoch, exact resume") {
  // 5 batches of 32 (the last of 22) per epoch, 2 per step: steps of 64, 64 and 22 items.
  auto [params, steps] = train_spirals({"trainer.accumulate=2", "trainer.steps=0", "trainer.epochs=2"});
  REQUIRE(steps.size() == 6);  // ceil(5 / 2) = 3 steps per epoch
  std::vector<int64_t> items, epochs;
  for (const StepRecord& r : steps) items.push_back(r.items), epochs.push_back(r.epoch);
  CHECK(items == std::vector<int64_t>{64, 64, 22, 64, 64, 22});
  CHECK(epochs == std::vector<int64_t>{1, 1, 1, 2, 2, 2});

  // Stop after step 4 (epoch 2, next batch 3) and resume: bit-identical to the straight run.
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(6);
  apply_override(c, "trainer.accumulate=2");
  ScratchDir dir;
  {
    auto task = build_task(spec, c, Device::cpu());
    Trainer t(*task, spec.name, c, dir.str());
    t.log = nullptr;
    t.on_step = [](const StepRecord& r) {
      if (r.step == 4) request_stop();
    };
    CHECK(t.fit().interrupted);
  }
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").extra["batch_in_epoch"] == 2);
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, dir.str());
  t.log = nullptr;
  std::vector<double> resumed;
  t.on_step = [&](const StepRecord& r) { resumed.push_back(r.loss); };
  t.resume(dir / "checkpoint_last.safetensors");
  t.fit();
  CHECK(resumed == std::vector<double>{steps[4].loss, steps[5].loss});
  CHECK(flat_params(task->model()) == params);
  CHECK(throws_with([] { TrainerOptions::from_json(ScriptedTask::config({"trainer.accumulate=0"})["trainer"]); },
                    {"trainer.accumulate must be >= 1"}));
}

TEST_CASE("trainer validation: val_ metrics at every evaluation, the test metrics at the last one only") {
  ScratchDir dir;
  ScriptedTask task({0.5, 0.25});
  Json c = ScriptedTask::config({"trainer.steps=4", "trainer.eval_every=2"});
  Trainer t(task, "scripted", c, dir.str());
  t.log = nullptr;
  std::vector<std::pair<int64_t, Json>> evals;
  t.on_eval = [&](int64_t step, const Json& m) { evals.emplace_back(step, m); };
  FitResult r = t.fit();
  REQUIRE(evals.size() == 2);
  CHECK(evals[0].first == 2);
  CHECK(evals[0].second == Json{{"val_loss", 0.5}});  // no look at the test split during training
  CHECK(evals[1].second == Json{{"test_metric", 1.0}, {"val_loss", 0.25}});
  CHECK(r.eval == evals[1].second);
  std::vector<Json> lines = read_jsonl(dir / "metrics.jsonl");
  REQUIRE(lines.size() == 2);
  CHECK(!lines[0].contains("test_metric"));
  CHECK(lines[1]["val_loss"] == 0.25);
  CHECK(lines[1]["test_metric"] == 1.0);
  CHECK(!fs::exists(dir.path / "checkpoint_best.safetensors"));  // no monitor: no best checkpoint
}

TEST_CASE("trainer test_metrics=every: the test metrics at every evaluation, and a test metric as monitor") {
  ScratchDir dir;
  ScriptedTask task({0.5, 0.25});
  Json c = ScriptedTask::config({"trainer.steps=4", "trainer.eval_every=2", "trainer.test_metrics=every"});
  Trainer t(task, "scripted", c, dir.str());
  t.log = nullptr;
  std::vector<Json> evals;
  t.on_eval = [&](int64_t, const Json& m) { evals.push_back(m); };
  t.fit();
  REQUIRE(evals.size() == 2);
  CHECK(evals[0] == Json{{"test_metric", 1.0}, {"val_loss", 0.5}});
  CHECK(read_jsonl(dir / "metrics.jsonl")[0]["test_metric"] == 1.0);
  // Selecting on the test split must be asked for by name.
  CHECK(throws_with([] { TrainerOptions::from_json(ScriptedTask::config({"trainer.monitor=test_metric"})["trainer"]); },
                    {"trainer.monitor 'test_metric' is not a validation metric", "trainer.test_metrics=every"}));
  CHECK_NOTHROW(TrainerOptions::from_json(
      ScriptedTask::config({"trainer.monitor=test_metric", "trainer.test_metrics=every"})["trainer"]));
  CHECK(throws_with([] { TrainerOptions::from_json(ScriptedTask::config({"trainer.test_metrics=never"})["trainer"]); },
                    {"trainer.test_metrics 'never' is not end or every"}));
}

TEST_CASE("trainer monitor: checkpoint_best at the best evaluation (min and max), unknown metric refused") {
  for (const char* mode : {"min", "max"}) {
    CAPTURE(mode);
    ScratchDir dir;
    ScriptedTask task({0.5, 0.3, 0.4, 0.6, 0.2});
    Json c = ScriptedTask::config({"trainer.steps=5", "trainer.eval_every=1", "trainer.monitor=val_loss",
                                   fmt::format("trainer.monitor_mode={}", mode)});
    Trainer t(task, "scripted", c, dir.str());
    t.log = nullptr;
    FitResult r = t.fit();
    CHECK(!r.stopped_early);
    const int64_t expected_step = std::string(mode) == "min" ? 5 : 4;  // 0.2 at step 5; 0.6 at step 4
    CHECK(r.best_step == expected_step);
    CHECK(r.best == (std::string(mode) == "min" ? 0.2 : 0.6));
    CHECK(optim::read_checkpoint_info(dir / "checkpoint_best.safetensors").step == expected_step);
    CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").step == 5);
  }
  ScriptedTask task({1.0});
  Json c = ScriptedTask::config({"trainer.steps=2", "trainer.monitor=val_acc"});
  Trainer t(task, "scripted", c, "");
  t.log = nullptr;
  CHECK(throws_with([&] { t.fit(); }, {"trainer.monitor 'val_acc' is not among", "test_metric, val_loss"}));
  CHECK(throws_with([] { TrainerOptions::from_json(ScriptedTask::config({"trainer.monitor_mode=up"})["trainer"]); },
                    {"monitor_mode 'up'"}));
}

TEST_CASE("trainer early stopping: patience evaluations without improvement end the run") {
  ScratchDir dir;
  // Best 0.8 at step 2; steps 3 and 4 do not improve: patience 2 stops after step 4.
  ScriptedTask task({1.0, 0.8, 0.9, 0.85, 0.1});
  Json c = ScriptedTask::config(
      {"trainer.steps=10", "trainer.eval_every=1", "trainer.monitor=val_loss", "trainer.early_stopping_patience=2"});
  Trainer t(task, "scripted", c, dir.str());
  std::FILE* out = std::tmpfile();
  t.log = out;
  FitResult r = t.fit();
  CHECK(r.stopped_early);
  CHECK(!r.interrupted);
  CHECK(r.step == 4);
  CHECK(r.best == 0.8);
  CHECK(r.best_step == 2);
  std::rewind(out);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), out));
  std::fclose(out);
  CHECK(text.find("early stopping at step 4/10: val_loss has not improved for 2 evaluations (best 0.8 at step 2)") !=
        std::string::npos);
  CHECK(optim::read_checkpoint_info(dir / "checkpoint_last.safetensors").step == 4);
  // The stopping evaluation is the run's last: it has the test metrics, the ones before it do not.
  CHECK(r.eval == Json{{"test_metric", 1.0}, {"val_loss", 0.85}});
  std::vector<Json> lines = read_jsonl(dir / "metrics.jsonl");
  CHECK(!lines.at(2).contains("test_metric"));
  CHECK(lines.back()["test_metric"] == 1.0);
  CHECK(throws_with(
      [] { TrainerOptions::from_json(ScriptedTask::config({"trainer.early_stopping_patience=3"})["trainer"]); },
      {"early_stopping_patience needs trainer.monitor"}));
}

TEST_CASE("trainer precision: bf16 is refused on the CPU with a clear message") {
  for (const char* precision : {"bf16", "bf16-activations"}) {
    ScriptedTask task({1.0});
    Json c = ScriptedTask::config({"trainer.steps=1", fmt::format("trainer.precision={}", precision)});
    Trainer t(task, "scripted", c, "");
    t.log = nullptr;
    CHECK(throws_with([&] { t.fit(); }, {fmt::format("[Trainer] --precision {} needs a CUDA device: the CPU GEMMs "
                                                     "have no bf16 kernel",
                                                     precision)}));
  }
  CHECK(throws_with([] { TrainerOptions::from_json(ScriptedTask::config({"trainer.precision=fp16"})["trainer"]); },
                    {"precision 'fp16' is not fp32, bf16 or bf16-activations"}));
}
