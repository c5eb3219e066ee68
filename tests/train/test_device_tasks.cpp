// Every registered task and study on a CUDA device: a real GPU where there is one, else the
// emulated device (HARMONIC_EMULATE_CUDA=1, cuda/runtime/emulation.h; ctest runs these cases once
// more under it), so placement bugs, host reads of device memory and per-step allocations
// show on machines without a GPU. A new task or study is covered by being registered: the
// cases walk the registries and use each one's smoke config.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "harmonic/core/profiler.h"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/deferred_checks.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/tools/demos/spiral_sgd.h"
#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/tasks/lm_text.h"
#include "harmonic/tools/train/train_cli.h"
#include "tests/data_helpers.h"
#include "tests/device_harness.h"
#include "tests/trainer_helpers.h"

namespace hm::test {
namespace {

using train::Json;

// Trains `spec` with its smoke config on `device` for 2 steps, then resumes to the third from
// the checkpoint; returns the resumed run's last loss.
double train_and_resume(const train::TaskSpec& spec, Device device, const ScratchDir& dir) {
  Json config = train::smoke_config(spec, dir / "files");
  train::apply_override(config, "trainer.steps=2");
  const std::string out = dir / "run";
  {
    std::unique_ptr<train::Task> task = train::build_task(spec, config, device);
    CHECK(task->model().device() == device);
    train::Trainer trainer(*task, spec.name, config, out);
    trainer.log = nullptr;
    const train::FitResult r = trainer.fit();
    CHECK(r.step == 2);
    CHECK(r.eval.is_object());
  }
  REQUIRE(std::filesystem::exists(train::Trainer::last_checkpoint_in(out)));
  train::apply_override(config, "trainer.steps=3");
  std::unique_ptr<train::Task> task = train::build_task(spec, config, device);
  train::Trainer trainer(*task, spec.name, config, out);
  trainer.log = nullptr;
  double last = NAN;
  trainer.on_step = [&](const train::StepRecord& s) { last = s.loss; };
  trainer.resume(train::Trainer::last_checkpoint_in(out));
  const train::FitResult r = trainer.fit();
  CHECK(r.step == 3);
  CHECK(std::isfinite(last));
  const Json evaluated = trainer.evaluate();
  CHECK(evaluated.is_object());
  return last;
}

}  // namespace

TEST_CASE("[cuda] every registered task trains, evaluates, checkpoints and resumes on cuda:0") {
  announce_targets();
  if (!cuda::available()) return;
  MESSAGE("device: " << cuda::describe());
  for (const train::TaskSpec& spec : train::tasks()) {
    CAPTURE(spec.name);
    if (test_only(spec.name) || !data_available_for(spec.name)) continue;
    ScratchDir cpu_dir, cuda_dir;
    const double on_cpu = train_and_resume(spec, Device::cpu(), cpu_dir);
    const double on_cuda = train_and_resume(spec, Device::cuda(0), cuda_dir);
    // Same data, initialisation and steps: the losses agree up to the kernels' float rounding
    // (and, with dropout, the device's own random stream).
    MESSAGE(spec.name << ": step-3 loss " << on_cpu << " on the CPU, " << on_cuda << " on cuda:0");
    CHECK(std::isfinite(on_cuda));
  }
}

// bfloat16 activations (ops/autocast.h): every op a task's GEMM products reach either computes
// in bfloat16 or widens them, forward and backward, the parameters stay float32, and two steps
// end near the float32-products run (bfloat16 keeps 8 bits of mantissa: a few per mille).
TEST_CASE("[cuda] every registered task trains with --precision bf16-activations on cuda:0") {
  announce_targets();
  if (!cuda::available()) return;
  for (const train::TaskSpec& spec : train::tasks()) {
    CAPTURE(spec.name);
    if (test_only(spec.name) || !data_available_for(spec.name)) continue;
    auto run = [&](const std::string& precision) {
      ScratchDir dir;
      Json config = train::smoke_config(spec, dir / "files");
      train::apply_override(config, "trainer.steps=2");
      train::apply_override(config, "trainer.precision=" + precision);
      std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
      train::Trainer trainer(*task, spec.name, config, dir / "run");
      trainer.log = nullptr;
      double last = NAN;
      trainer.on_step = [&](const train::StepRecord& s) { last = s.loss; };
      CHECK(trainer.fit().step == 2);
      for (const Tensor& p : task->model().parameters()) CHECK(p.dtype() != DType::BFloat16);
      return last;
    };
    const double products32 = run("bf16"), products16 = run("bf16-activations");
    MESSAGE(spec.name << ": step-2 loss " << products16 << " with bf16 activations, " << products32
                      << " with float32 products");
    CHECK(std::isfinite(products16));
    CHECK(std::abs(products16 - products32) <= 0.03 * std::abs(products32) + 1e-3);
  }
}

TEST_CASE("[cuda] every study takes --set device=cuda and runs its quick grid's first run there") {
  announce_targets();
  for (const studies::StudySpec& spec : studies::all_studies()) {
    CAPTURE(spec.name);
    if (test_only(spec.name)) continue;
    REQUIRE_MESSAGE(spec.options.contains("device"), "study " << spec.name << " has no 'device' option");
    REQUIRE_MESSAGE(!spec.smoke.empty(), "study " << spec.name << " registers no smoke options");
    if (!cuda::available() || !data_available_for(spec.name)) continue;
    studies::StudyContext c;
    c.quick = true;
    c.options = spec.options;
    for (const auto& [k, v] : spec.smoke.items()) c.options[k] = v;
    c.options["device"] = "cuda";
    const std::vector<studies::StudyRun> runs = spec.grid(c);
    REQUIRE(!runs.empty());
    ScratchDir dir;
    studies::StudyRun run = runs.front();
    run.dir = dir.str();
    run.work_dir = dir / "in_progress";
    std::filesystem::create_directories(run.work_dir);
    const Json result = spec.run(run);
    CHECK(result.is_object());
    MESSAGE(spec.name << ": " << run.label << " ran on cuda:0");
  }
}

TEST_CASE("[cuda] eval, grads, sample, forecast and demo with a model on cuda:0") {
  announce_targets();
  if (!cuda::available()) return;
  auto cli = [](std::vector<std::string> words) {
    words.insert(words.begin(), "harmonic");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    return train::train_main(static_cast<int>(argv.size()), argv.data());
  };
  ScratchDir dir;
  if (have_kjv()) {
    const std::string lm = dir / "lm";
    REQUIRE(cli({"train", "kjv-lm", "--smoke", "--device", "cuda", "--out", lm}) == 0);
    CHECK(cli({"eval", "--out", lm, "--device", "cuda"}) == 0);
    CHECK(cli({"grads", "--out", lm, "--device", "cuda"}) == 0);
    train::LanguageModel model = train::load_language_model(lm, Device::cuda(0));
    const train::EncodedText prompt = train::encode_text(*model.tokenizer, "In the beginning");
    train::GenerateOptions o;
    o.tokens = 5, o.seed = 1;
    const std::string text = train::generate_text(model, prompt, o);
    CHECK(text.rfind("In the beginning", 0) == 0);
  }
  const std::string chronos = dir / "chronos";
  REQUIRE(cli({"train", "chronos", "--smoke", "--device", "cuda", "--out", chronos}) == 0);
  train::ChronosForecaster f = train::load_chronos(chronos, Device::cuda(0));
  {
    std::ofstream csv(dir / "series.csv");
    csv << "x\n";
    for (int t = 0; t < 40; ++t) csv << 10 + t % 7 << "\n";
  }
  train::ForecastCsvOptions o;
  o.csv = dir / "series.csv", o.horizon = 3, o.samples = 4, o.eval = true;
  const train::ForecastCsvResult r = train::forecast_csv(*f.model, o);
  REQUIRE(r.forecasts.size() == 1);
  CHECK(r.relative.has_value());
  const demos::SpiralDemoResult demo =
      demos::train_spiral_mlp({.points_per_class = 20, .hidden = 8, .epochs = 3, .device = "cuda"});
  CHECK(demo.losses.size() == 3);
}

TEST_CASE("[cuda] a host read of device memory is an error naming the function and the tensor") {
  announce_targets();
  if (!cuda::available()) return;
  Tensor t = ones({3}).to(Device::cuda(0));
  CHECK(throws_with([&] { (void)t.data<float>(); }, {"[data]", "float32 (3,) cuda:0", "host access"}));
  CHECK(sum(t).item<double>() == 3.0);  // item() and to_vector() copy to the host first
  CHECK(t.to_vector() == std::vector<double>{1, 1, 1});
}

TEST_CASE("[cuda] a steady-state training step allocates no new device memory") {
  announce_targets();
  if (!cuda::available()) return;
  // kjv-lm: its deferred index checks' verdicts come from the cache too.
  for (const std::string name : {"mlp-spirals", "kjv-lm"}) {
    CAPTURE(name);
    if (!data_available_for(name)) continue;
    const train::TaskSpec& spec = train::find_task(name);
    Json config = train::smoke_config(spec, "");
    train::apply_override(config, "trainer.steps=4");
    train::apply_override(config, "trainer.eval_every=0");
    std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
    train::Trainer trainer(*task, spec.name, config, "");
    trainer.log = nullptr;
    std::vector<uint64_t> mallocs;
    trainer.on_step = [&](const train::StepRecord&) { mallocs.push_back(cuda::allocator_stats(0).device_mallocs); };
    trainer.fit();
    REQUIRE(mallocs.size() == 4);
    MESSAGE(name << ": device allocations after each step: " << mallocs[0] << " " << mallocs[1] << " " << mallocs[2]
                 << " " << mallocs[3]);
    CHECK(mallocs[3] == mallocs[1]);  // steps 3 and 4 reuse the cached blocks
  }
}

// Host waits for the device during fit() of `spec`'s smoke config for `steps` steps, logging at
// the end only; with an out_dir, metrics.jsonl is written there.
uint64_t fit_waits(const train::TaskSpec& spec, int64_t steps, int64_t log_every, const std::string& out,
                   bool with_on_step) {
  Json config = train::smoke_config(spec, "");
  train::apply_override(config, fmt::format("trainer.steps={}", steps));
  train::apply_override(config, fmt::format("trainer.log_every={}", log_every));
  train::apply_override(config, "trainer.eval_every=0");
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
  train::Trainer trainer(*task, spec.name, config, out);
  trainer.log = nullptr;
  if (with_on_step) trainer.on_step = [](const train::StepRecord&) {};
  const uint64_t before = cuda::host_waits(0);
  trainer.fit();
  return cuda::host_waits(0) - before;
}

TEST_CASE("[cuda] a training step on cuda does not wait for the device, whose losses are read where the trainer logs") {
  announce_targets();
  if (!cuda::available()) return;
  // fru-synthetic's ops check no indices on the host, so its step needs no wait at all: four
  // more steps, the same waits (the final evaluation and the one read of the losses).
  const train::TaskSpec& spec = train::find_task("fru-synthetic");
  const uint64_t two = fit_waits(spec, 2, 100, "", false), six = fit_waits(spec, 6, 100, "", false);
  MESSAGE("host waits in fit(): " << two << " for 2 steps, " << six << " for 6");
  CHECK(six == two);
  // With on_step (which gets every step's loss) the trainer reads each step.
  const uint64_t two_read = fit_waits(spec, 2, 100, "", true), six_read = fit_waits(spec, 6, 100, "", true);
  CHECK(six_read - two_read >= 4);
  // Read late or at once, the logged means are the same numbers.
  ScratchDir late, each;
  fit_waits(spec, 6, 2, late.str(), false);
  fit_waits(spec, 6, 2, each.str(), true);
  const std::vector<Json> a = read_jsonl(late / "metrics.jsonl"), b = read_jsonl(each / "metrics.jsonl");
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i]["step"] == b[i]["step"]);
    CHECK(a[i]["loss"].get<double>() == b[i]["loss"].get<double>());
    CHECK(a[i]["grad_norm"].get<double>() == b[i]["grad_norm"].get<double>());
  }
}

TEST_CASE("[cuda] a language model's training step on cuda does not wait for its index checks") {
  announce_targets();
  if (!cuda::available()) return;
  // Embedding and cross_entropy check their indices on the device; the trainer reads the
  // verdicts with the losses (cuda/runtime/deferred_checks.h; unless HARMONIC_DEFER_INDEX_CHECKS=0).
  // (arcade-dt's final evaluation plays episodes whose length, and so whose waits, depend on the
  // weights.)
  if (!cuda::index_checks_deferrable()) return;
  for (const std::string name : {"kjv-lm", "chronos"}) {
    CAPTURE(name);
    if (!data_available_for(name)) continue;
    const train::TaskSpec& spec = train::find_task(name);
    const uint64_t two = fit_waits(spec, 2, 100, "", false), five = fit_waits(spec, 5, 100, "", false);
    MESSAGE(name << ": host waits in fit(): " << two << " for 2 steps, " << five << " for 5");
    CHECK(five == two);
  }
}

TEST_CASE("[cuda] a bad index inside a training step on cuda is reported where the trainer reads, naming the step") {
  announce_targets();
  if (!cuda::available()) return;
  if (!have_kjv()) return;
  if (!cuda::index_checks_deferrable()) return;  // HARMONIC_DEFER_INDEX_CHECKS=0: reported at the op
  // kjv-lm whose token ids, from the third step on, lie past the vocabulary.
  struct BadTokens : train::Task {
    std::unique_ptr<train::Task> inner;
    int64_t calls = 0;
    nn::Module& model() override { return inner->model(); }
    optim::Optimizer& optimizer() override { return inner->optimizer(); }
    const data::DataLoader& train_loader() override { return inner->train_loader(); }
    Json evaluate() override { return inner->evaluate(); }
    Tensor loss(const data::Batch& b) override {
      if (++calls < 3) return inner->loss(b);
      return inner->loss({full_like(b.input, 1e6), b.target});
    }
  };
  const train::TaskSpec& spec = train::find_task("kjv-lm");
  Json config = train::smoke_config(spec, "");
  train::apply_override(config, "trainer.steps=5");
  train::apply_override(config, "trainer.log_every=100");
  train::apply_override(config, "trainer.eval_every=0");
  BadTokens task;
  task.inner = train::build_task(spec, config, Device::cuda(0));
  train::Trainer trainer(task, spec.name, config, "");
  trainer.log = nullptr;
  CHECK(throws_with([&] { trainer.fit(); }, {"[embedding]", "index 1000000 at position 0", "training step 3 (epoch"}));
}

TEST_CASE("[cuda] a loss that diverges between two reads names its own step") {
  announce_targets();
  if (!cuda::available()) return;
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  Json c = small_spirals(50);
  train::apply_override(c, "lr=1e6");
  train::apply_override(c, "momentum=0.0");
  train::apply_override(c, "trainer.log_every=50");
  train::apply_override(c, "trainer.eval_every=0");
  std::unique_ptr<train::Task> task = train::build_task(spec, c, Device::cuda(0));
  train::Trainer t(*task, spec.name, c, "");
  t.log = nullptr;
  try {
    t.fit();
    FAIL("no NonFiniteLoss");
  } catch (const train::NonFiniteLoss& e) {
    CHECK(!std::isfinite(e.loss));
    CHECK(e.step < 50);  // the first diverged step, not the step that read it
    CHECK(std::string(e.what()).find(fmt::format("at step {} (", e.step)) != std::string::npos);
    CHECK(std::string(e.what()).find("read at step 50") != std::string::npos);
  }
}

TEST_CASE("profiler: a trainer's --profile table has kernels and phases, on the CPU and on cuda:0") {
  std::vector<Device> devices = {Device::cpu()};
  if (cuda::available()) devices.push_back(Device::cuda(0));
  for (Device device : devices) {
    CAPTURE(device.str());
    ScratchDir dir;
    const train::TaskSpec& spec = train::find_task("mlp-spirals");
    Json config = train::smoke_config(spec, "");
    train::apply_override(config, "trainer.steps=4");
    std::unique_ptr<train::Task> task = train::build_task(spec, config, device);
    train::Trainer trainer(*task, spec.name, config, dir.str());
    trainer.log = nullptr;
    trainer.profile_steps = 2;
    trainer.fit();
    const ProfileReport& r = trainer.last_profile;
    CHECK(r.steps == 2);
    REQUIRE(!r.kernels.empty());
    bool gemm = false;
    for (const ProfileRow& row : r.kernels) {
      gemm = gemm || (row.name == "gemm" && row.device == device.str());
      CHECK((row.device == device.str() || row.device == "cpu"));  // the loader's batches are made on the host
      CHECK(row.calls > 0);
      CHECK(row.total_ms >= 0);
    }
    CHECK(gemm);
    std::vector<std::string> phases;
    for (const ProfileRow& row : r.phases) phases.push_back(row.name);
    for (const char* p : {"forward", "backward", "clip + optimizer", "data"})
      CHECK_MESSAGE(std::find(phases.begin(), phases.end(), p) != phases.end(), "missing phase " << p);
    const std::string table = format_profile(r);
    CHECK(table.find("gemm") != std::string::npos);
    CHECK(table.find("over 2 steps") != std::string::npos);
    CHECK(std::filesystem::exists(dir / "profile.json"));
  }
}

TEST_CASE("profiler: counts calls of nested kernels once, and one profiler at a time") {
  Tensor a = randn({16, 16});
  Profiler p;
  CHECK(throws_with([] { Profiler second; }, {"[Profiler]", "already recording"}));
  for (int i = 0; i < 3; ++i) (void)matmul(a, a);
  ProfileReport r = p.report();
  int64_t gemms = 0;
  for (const ProfileRow& row : r.kernels)
    if (row.name == "gemm") gemms += row.calls;
  CHECK(gemms == 3);
  CHECK(throws_with([&] { p.report(); }, {"[Profiler::report]"}));
}

}  // namespace hm::test
