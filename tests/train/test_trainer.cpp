// Tests of the training stack's tools: config overrides, the task registry, the Trainer
// (metrics.jsonl, checkpoints, exact resume, the Ctrl-C path), gradient reports, and the
// Fashion-MNIST end-to-end run.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "harmonic/data/datasets.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/optim/clip.h"
#include "tests/helpers.h"
#include "tests/trainer_helpers.h"
#include "harmonic/tools/demos/spiral_sgd.h"
#include "harmonic/tools/train/classifier_metrics.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/grad_inspect.h"
#include "harmonic/tools/train/trainer.h"

using namespace hm;
using namespace hm::train;
using namespace hm::test;
namespace fs = std::filesystem;

// -- config -------------------------------------------------------------------------------------

TEST_CASE("trainer config: --set parses by the default's type, errors name the key and the valid keys") {
  Json c = {{"seed", 1},     {"lr", 0.5},      {"name", "x"},
            {"flag", false}, {"dims", {4, 8}}, {"trainer", {{"steps", 0}, {"clip", 0.0}}}};
  apply_override(c, "lr=1e-3");
  apply_override(c, "seed=7");
  apply_override(c, "name=hello=world");  // only the first '=' splits
  apply_override(c, "flag=true");
  apply_override(c, "dims=[1, 2, 3]");
  apply_override(c, "trainer.steps=100");
  apply_override(c, "trainer.clip=2");  // an integer text is fine for a float
  CHECK(c["lr"].get<double>() == 1e-3);
  CHECK(c["seed"].get<int64_t>() == 7);
  CHECK(c["name"] == "hello=world");
  CHECK(c["flag"] == true);
  CHECK(c["dims"] == Json({1, 2, 3}));
  CHECK(c["trainer"]["steps"] == 100);
  CHECK(c["trainer"]["clip"].is_number_float());
  CHECK(config_keys(c) ==
        std::vector<std::string>{"dims", "flag", "lr", "name", "seed", "trainer.clip", "trainer.steps"});

  CHECK(throws_with(
      [&] { apply_override(c, "trainer.setps=5"); },
      {"unknown key 'trainer.setps'", "valid keys: dims, flag, lr, name, seed, trainer.clip, trainer.steps"}));
  CHECK(throws_with([&] { apply_override(c, "seed=1.5"); }, {"--set seed=1.5", "expected an integer"}));
  CHECK(throws_with([&] { apply_override(c, "lr=fast"); }, {"expected a number"}));
  CHECK(throws_with([&] { apply_override(c, "flag=yes"); }, {"true or false"}));
  CHECK(throws_with([&] { apply_override(c, "dims=[1, 2.5]"); }, {"dims[1]", "expects integer"}));
  CHECK(throws_with([&] { apply_override(c, "trainer=3"); }, {"is a section", "trainer.clip, trainer.steps"}));
  CHECK(throws_with([&] { apply_override(c, "novalue"); }, {"key=value"}));

  // A --config file: the same checks, the file named; --set applies after it.
  ScratchDir dir;
  const std::string file = (dir.path / "c.json").string();
  std::ofstream(file) << R"({"lr": 0.25, "trainer": {"steps": 9}})";
  Json r = resolve_config(c, file, {"trainer.steps=11"});
  CHECK(r["lr"] == 0.25);
  CHECK(r["trainer"]["steps"] == 11);
  std::ofstream(file) << R"({"trainer": {"steps": 2.5}})";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"c.json", "key 'trainer.steps' expects integer", "2.5"}));
  std::ofstream(file) << R"({"lrr": 1})";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"c.json", "unknown key 'lrr'"}));
  // A dotted key at the top level of a file is refused by name (was a heap overflow).
  std::ofstream(file) << R"({"trainer.steps": 1})";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"c.json", "key 'trainer.steps' holds a dot", "--set"}));
  std::ofstream(file) << R"({"trainer": {"steps.x": 1}})";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"key 'trainer.steps.x' holds a dot"}));
  std::ofstream(file) << R"({"trainer": 3})";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"key 'trainer' is a section, got 3"}));
  std::ofstream(file) << R"({"trainer": {}})";  // an empty section changes nothing
  CHECK(resolve_config(c, file, {}) == c);
  std::ofstream(file) << "{oops";
  CHECK(throws_with([&] { resolve_config(c, file, {}); }, {"not valid JSON"}));
}

TEST_CASE("trainer tasks: registry, default configs with the trainer section, unknown names") {
  Json c = default_config(find_task("mlp-spirals"));
  CHECK(c["trainer"]["epochs"] == 300);  // the task's override of the trainer default
  CHECK(c["trainer"]["log_every"] == 25);
  CHECK(c["trainer"]["checkpoint_every"] == 0);  // a trainer default
  CHECK(c["seed"] == 1);
  CHECK(default_config(find_task("fashion-mlp"))["hidden"] == 256);
  CHECK(throws_with([] { find_task("mlp-spiral"); }, {"unknown task 'mlp-spiral'", "mlp-spirals", "fashion-mlp"}));
  Json bad = c;
  apply_override(bad, "trainer.lr_schedule=step");
  auto task = build_task(find_task("mlp-spirals"), small_spirals(1), Device::cpu());
  CHECK(throws_with([&] { Trainer(*task, "mlp-spirals", bad, ""); }, {"lr_schedule 'step'"}));
}

// -- the loop -----------------------------------------------------------------------------------

TEST_CASE("trainer: full-batch mlp-spirals reproduces the demo's losses") {
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = default_config(spec);
  apply_override(c, "trainer.steps=30");
  auto task = build_task(spec, c, Device::cpu());
  Trainer trainer(*task, spec.name, c, "");
  trainer.log = nullptr;
  std::vector<double> losses;
  trainer.on_step = [&](const StepRecord& r) { losses.push_back(r.loss); };
  FitResult r = trainer.fit();
  CHECK(!r.interrupted);
  CHECK(r.step == 30);
  demos::SpiralDemoConfig demo;
  demo.epochs = 30;
  std::vector<double> expected = demos::train_spiral_mlp(demo).losses;
  REQUIRE(losses.size() == expected.size());
  for (size_t i = 0; i < losses.size(); ++i) CHECK(losses[i] == doctest::Approx(expected[i]).epsilon(1e-5));
  CHECK(r.eval.contains("val_accuracy"));
}

// The throughput metrics.jsonl records at a step that also evaluates is the one the progress
// line printed: measured before the evaluation, whose time is not training.
TEST_CASE("trainer: metrics.jsonl's items/s at an evaluated step is the progress line's") {
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(6);
  apply_override(c, "trainer.log_every=3");
  apply_override(c, "trainer.eval_every=3");
  auto task = build_task(spec, c, Device::cpu());
  Trainer trainer(*task, spec.name, c, dir.str());
  const std::string log_path = dir.file("log.txt");
  FILE* log = std::fopen(log_path.c_str(), "w");
  REQUIRE(log != nullptr);
  trainer.log = log;
  // A slow evaluation hook: counted into the rate, it would lower it many times over.
  trainer.on_eval = [](int64_t, const Json&) { std::this_thread::sleep_for(std::chrono::milliseconds(300)); };
  trainer.fit();
  std::fclose(log);
  std::ifstream in(log_path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("step 6/6");
  REQUIRE(at != std::string::npos);
  const size_t bar = text.rfind(" | ", text.find(" items/s", at));
  const double printed = std::stod(text.substr(bar + 3));
  const std::vector<Json> lines = read_jsonl(dir.str() + "/metrics.jsonl");
  REQUIRE(lines.back()["step"] == 6);
  CHECK(lines.back().contains("val_accuracy"));
  CHECK(lines.back()["items_per_s"].get<double>() == doctest::Approx(printed).epsilon(0.05));
}

TEST_CASE("trainer: metrics.jsonl, config.json and periodic checkpoints") {
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(11);
  apply_override(c, "trainer.checkpoint_every=4");
  apply_override(c, "trainer.keep_checkpoints=true");
  apply_override(c, "trainer.lr_schedule=cosine");
  apply_override(c, "trainer.warmup_steps=2");
  auto task = build_task(spec, c, Device::cpu());
  Trainer trainer(*task, spec.name, c, dir.str());
  trainer.log = nullptr;
  std::vector<StepRecord> steps;
  trainer.on_step = [&](const StepRecord& r) { steps.push_back(r); };
  trainer.fit();
  REQUIRE(steps.size() == 11);

  // Lines at the log steps 3, 6, 9, the eval steps 5, 10 and the last step 11.
  std::vector<Json> lines = read_jsonl(dir.str() + "/metrics.jsonl");
  std::vector<int64_t> at;
  for (const Json& j : lines) at.push_back(j["step"].get<int64_t>());
  CHECK(at == std::vector<int64_t>{3, 5, 6, 9, 10, 11});
  const Json& l6 = lines[2];
  CHECK(lines[0]["epoch"] == 1);  // epochs count from 1
  CHECK(l6["epoch"] == 2);        // 5 batches per epoch: step 6 is the first of epoch 2
  CHECK(steps[4].epoch == 1);
  CHECK(steps[5].epoch == 2);
  CHECK(steps[5].items == 32);
  CHECK(steps[4].items == 150 - 4 * 32);  // the short last batch
  CHECK(l6["loss"].get<double>() == doctest::Approx((steps[3].loss + steps[4].loss + steps[5].loss) / 3));
  CHECK(l6["grad_norm"].get<double>() ==
        doctest::Approx((steps[3].grad_norm + steps[4].grad_norm + steps[5].grad_norm) / 3));
  CHECK(l6["lr"].get<double>() == steps[5].lr);
  for (const char* key : {"time", "items_per_s"}) CHECK(l6.contains(key));
  CHECK(!l6.contains("val_accuracy"));
  CHECK(lines[1].contains("val_accuracy"));  // step 5: evaluated, not a log step
  CHECK(!lines[1].contains("loss"));
  CHECK(lines[5].contains("loss"));  // the last step: both
  CHECK(lines[5].contains("val_loss"));
  // The schedule: warmup to the peak at step 2, then cosine down to 0 after step 11.
  CHECK(steps[0].lr == doctest::Approx(0.05));
  CHECK(steps[1].lr == doctest::Approx(0.1));
  CHECK(steps[10].lr < steps[2].lr);

  std::ifstream config_file(dir.str() + "/config.json");
  CHECK(Json::parse(config_file) == c);
  for (const char* f : {"checkpoint_last.safetensors", "checkpoint_step4.safetensors", "checkpoint_step8.safetensors",
                        "checkpoint_step11.safetensors"})
    CHECK(fs::exists(dir.path / f));
  optim::CheckpointInfo info = optim::read_checkpoint_info(dir.str() + "/checkpoint_step8.safetensors");
  CHECK(info.step == 8);
  CHECK(info.epoch == 1);  // epochs completed; the next batch is the 4th of epoch 2
  CHECK(info.extra["batch_in_epoch"] == 3);
  CHECK(info.extra["task"] == "mlp-spirals");
  CHECK(info.config == c);
}

// The acceptance test of the checkpoint design: train N steps straight; separately train,
// stop at step k (the Ctrl-C path), build everything afresh, resume and finish. Losses,
// parameters and metrics lines are bit-identical.
TEST_CASE("trainer: stop at step k (SIGINT), resume in fresh objects, and match the straight run bit for bit") {
  const TaskSpec& spec = find_task("mlp-spirals");
  const int64_t n = 13;
  for (int64_t k : {7, 5}) {  // mid-epoch (batch 2 of epoch 1) and at an epoch boundary
    CAPTURE(k);
    ScratchDir straight_dir, resumed_dir;
    Json c = small_spirals(n);

    auto straight = build_task(spec, c, Device::cpu());
    std::vector<double> straight_losses;
    {
      Trainer t(*straight, spec.name, c, straight_dir.str());
      t.log = nullptr;
      t.on_step = [&](const StepRecord& r) { straight_losses.push_back(r.loss); };
      CHECK(!t.fit().interrupted);
    }

    std::vector<double> resumed_losses;
    {
      auto first = build_task(spec, c, Device::cpu());
      Trainer t(*first, spec.name, c, resumed_dir.str());
      t.log = nullptr;
      t.on_step = [&](const StepRecord& r) {
        resumed_losses.push_back(r.loss);
        if (r.step == k) std::raise(SIGINT);  // the handler only sets the stop flag
      };
      FitResult r = t.fit();
      CHECK(r.interrupted);
      CHECK(r.step == k);
      CHECK(!stop_requested());  // cleared for the next fit
    }
    CHECK(optim::read_checkpoint_info(resumed_dir.str() + "/checkpoint_last.safetensors").step == k);
    // A stale metrics line of a run killed after the checkpoint is dropped on resume.
    std::ofstream(resumed_dir.str() + "/metrics.jsonl", std::ios::app) << R"({"step": 12, "loss": 99})"
                                                                       << "\n";
    {
      manual_seed(999);  // the process state differs: the checkpoint must restore it
      auto fresh = build_task(spec, c, Device::cpu());
      Trainer t(*fresh, spec.name, c, resumed_dir.str());
      t.log = nullptr;
      t.on_step = [&](const StepRecord& r) { resumed_losses.push_back(r.loss); };
      t.resume(resumed_dir.str() + "/checkpoint_last.safetensors");
      CHECK(t.step() == k);
      CHECK(!t.fit().interrupted);
      CHECK(flat_params(fresh->model()) == flat_params(straight->model()));
    }
    CHECK(resumed_losses == straight_losses);  // exact, not approximate

    std::vector<Json> a = read_jsonl(straight_dir.str() + "/metrics.jsonl");
    std::vector<Json> b = read_jsonl(resumed_dir.str() + "/metrics.jsonl");
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      for (Json* j : {&a[i], &b[i]}) j->erase("time"), j->erase("items_per_s");
      CHECK(a[i] == b[i]);
    }
  }
}

TEST_CASE("trainer: request_stop ends the loop after the current step and the SIGINT handler is restored") {
  static volatile std::sig_atomic_t seen = 0;
  auto mine = +[](int) { seen = 1; };
  auto previous = std::signal(SIGINT, mine);
  ScratchDir dir;
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(20);
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, dir.str());
  t.log = nullptr;
  t.on_step = [&](const StepRecord& r) {
    if (r.step == 3) request_stop();
  };
  FitResult r = t.fit();
  CHECK(r.interrupted);
  CHECK(r.step == 3);
  CHECK(fs::exists(dir.path / "checkpoint_last.safetensors"));
  const bool restored = std::signal(SIGINT, previous) == mine;  // fit() put the caller's handler back
  CHECK(restored);
  CHECK(seen == 0);

  // A checkpoint of another task is refused.
  auto other = build_task(spec, c, Device::cpu());
  Trainer wrong(*other, "fashion-mlp", c, "");
  CHECK(throws_with([&] { wrong.resume(dir.str() + "/checkpoint_last.safetensors"); },
                    {"checkpoint of task 'mlp-spirals', not 'fashion-mlp'"}));
}

TEST_CASE("trainer: a non-finite loss stops training with the step named") {
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(50);
  apply_override(c, "lr=1e6");
  apply_override(c, "momentum=0.0");
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  CHECK(throws_with([&] { t.fit(); }, {"[Trainer] task 'mlp-spirals': the loss is", "at step"}));
  // A typed error, so a study records a diverged run instead of failing.
  auto task2 = build_task(spec, c, Device::cpu());
  Trainer t2(*task2, spec.name, c, "");
  t2.log = nullptr;
  try {
    t2.fit();
    FAIL("no NonFiniteLoss");
  } catch (const NonFiniteLoss& e) {
    CHECK(e.step >= 1);
    CHECK(!std::isfinite(e.loss));
    CHECK(std::string(e.what()).find(fmt::format("at step {}", e.step)) != std::string::npos);
  }
}

TEST_CASE("trainer: gradient report names every parameter and matches the total norm") {
  const TaskSpec& spec = find_task("mlp-spirals");
  Json c = small_spirals(1);
  auto task = build_task(spec, c, Device::cpu());
  data::Batch batch = task->train_loader().dataset().get_batch({0, 5, 9, 140});
  GradReport r = gradient_report(*task, batch);
  REQUIRE(r.params.size() == 6);
  CHECK(r.params[0].name == "fc1.weight");
  CHECK(r.params[0].shape == Shape{16, 2});
  double sq = 0;
  for (const GradStat& s : r.params) {
    CHECK(s.has_grad);
    CHECK(s.grad_norm > 0);
    CHECK(s.grad_max <= s.grad_norm + 1e-12);
    sq += s.grad_norm * s.grad_norm;
  }
  CHECK(r.total_norm == doctest::Approx(std::sqrt(sq)));
  CHECK(r.total_norm == doctest::Approx(optim::clip_grad_norm_(task->model().parameters(), 1e9)));
  Json j = to_json(r);
  CHECK(j["params"][2]["name"] == "fc2.weight");
  CHECK(j["loss"].get<double>() == r.loss);
  const std::string table = format_table(r);
  CHECK(table.find("fc3.bias") != std::string::npos);
  CHECK(table.find("total gradient norm") != std::string::npos);
}

// -- real data ----------------------------------------------------------------------------------

TEST_CASE("trainer: fashion-mlp reaches >= 82% test accuracy after one epoch, with a 10% validation split") {
  if (!data::fashion_mnist_available()) {
    MESSAGE("skipped: dataset-fashion-mnist not installed (bash .ci/install-data)");
    return;
  }
  const TaskSpec& spec = find_task("fashion-mlp");
  // 784-256-10, Adam 1e-3, batch 128, 1 epoch of the 54000 training images left after the
  // 10% validation split = ceil(54000 / 128) = 422 steps.
  Json c = default_config(spec);
  auto start = std::chrono::steady_clock::now();
  auto task = build_task(spec, c, Device::cpu());
  Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  FitResult r = t.fit();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double accuracy = r.eval["test_accuracy"].get<double>();
  MESSAGE("fashion-mlp: " << r.step << " steps, test accuracy " << accuracy << ", test loss "
                          << r.eval["test_loss"].get<double>() << ", " << seconds << " s including loading");
  CHECK(r.step == 422);
  CHECK(r.eval["val_accuracy"].get<double>() >= 0.82);
  CHECK(accuracy >= 0.82);  // measured 0.840 (seed 0)
}

namespace {
struct LogitsAreInputs : nn::UnaryModule {
  LogitsAreInputs() : nn::UnaryModule("LogitsAreInputs") {}
  Tensor forward(const Tensor& x) override { return x; }
};
}  // namespace

TEST_CASE("classifier_metrics: mean cross-entropy and accuracy in chunks, bad shapes refused") {
  LogitsAreInputs model;
  Tensor x = from_vector(std::vector<double>{2, 1, 0, 3, 1, 0}, {3, 2});
  Tensor y = from_vector(std::vector<int64_t>{0, 1, 1}, {3});
  // log(1 + e^-1), log(1 + e^-3), log(1 + e^1): the three rows' -log p(label)
  const double loss = (std::log1p(std::exp(-1.0)) + std::log1p(std::exp(-3.0)) + std::log1p(std::exp(1.0))) / 3;
  for (int64_t chunk : {1, 2, 3, 10}) {
    CAPTURE(chunk);
    const ClassifierMetrics m = classifier_metrics(model, x, y, chunk);
    CHECK(m.loss == doctest::Approx(loss).epsilon(1e-12));
    CHECK(m.accuracy == doctest::Approx(2.0 / 3.0));
  }
  CHECK(hm::test::throws_with([&] { classifier_metrics(model, x, slice(y, 0, 0, 2), 2); },
                              {"classifier_metrics", "(3, 2)", "(2,)"}));
  CHECK(hm::test::throws_with([&] { classifier_metrics(model, x, y, 0); }, {"classifier_metrics", "chunk"}));
}

TEST_CASE("config: a directory or a missing file given as --config says so") {
  Json c = Json::object();
  CHECK(hm::test::throws_with([&] { merge_config_file(c, std::filesystem::temp_directory_path().string()); },
                              {"[config]", "is a directory, not a file"}));
  CHECK(hm::test::throws_with([&] { merge_config_file(c, "/nonexistent/harmonic.json"); },
                              {"[config]", "cannot open: no such file"}));
}

TEST_CASE("trainer: the eval line shows scalars and the size of long lists (their values stay in metrics.jsonl)") {
  struct ListTask : hm::test::ScriptedTask {
    ListTask() : ScriptedTask({1.0}) {}
    Json evaluate() override {
      return {{"accuracy", 0.5}, {"pmfs", std::vector<double>(300, 0.125)}, {"bins", std::vector<int>{1, 2}}};
    }
  } task;
  hm::test::ScratchDir dir;
  Trainer t(task, "list-task", hm::test::ScriptedTask::config({"trainer.steps=2"}), dir.str());
  const std::string out = hm::test::capture_log([&](std::FILE* log) {
    t.log = log;
    t.fit();
  });
  CHECK(out.find("accuracy 0.5000") != std::string::npos);
  CHECK(out.find("pmfs [300 values]") != std::string::npos);
  CHECK(out.find("bins [1,2]") != std::string::npos);
  CHECK(out.find("0.125") == std::string::npos);
  CHECK(hm::test::read_jsonl(dir / "metrics.jsonl").back().at("pmfs").size() == 300);
}
