// trainer.cuda_graph on cuda:0 (a GPU, else the emulated device under ctest's
// HARMONIC_EMULATE_CUDA=1): for every registered task's smoke config, a run that captures its
// step and replays it gives the eager run's losses and final parameters bit for bit, and the
// tasks that capture are exactly those listed.
#include <doctest/doctest.h>

#include "harmonic/cuda/runtime/runtime.h"
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

// `steps` steps of the task's smoke config on cuda:0 with trainer.cuda_graph=mode.
GraphRun graph_trainer_run(const train::TaskSpec& spec, const std::string& mode, int64_t steps) {
  ScratchDir dir;
  train::Json config = train::smoke_config(spec, dir / "files");
  train::apply_override(config, fmt::format("trainer.steps={}", steps));
  train::apply_override(config, "trainer.cuda_graph=" + mode);
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
  train::Trainer trainer(*task, spec.name, config, "");
  trainer.log = nullptr;
  GraphRun run;
  trainer.on_step = [&](const train::StepRecord& s) { run.losses.push_back(s.loss); };
  trainer.fit();
  for (const auto& [name, t] : task->model().state_dict())
    for (double v : t.to_vector()) run.params.push_back(v);
  run.replays = trainer.graph_replays();
  run.fallback = trainer.graph_fallback();
  return run;
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

TEST_CASE("[cuda] trainer.cuda_graph=on names what prevents the capture") {
  announce_targets();
  if (!cuda::available()) return;
  const train::TaskSpec& spec = train::find_task("mlp-spirals");
  ScratchDir dir;
  train::Json config = train::smoke_config(spec, dir / "files");
  train::apply_override(config, "trainer.steps=4");
  train::apply_override(config, "trainer.accumulate=2");
  train::apply_override(config, "trainer.cuda_graph=on");
  std::unique_ptr<train::Task> task = train::build_task(spec, config, Device::cuda(0));
  train::Trainer trainer(*task, spec.name, config, "");
  trainer.log = nullptr;
  CHECK_THROWS_WITH_AS(trainer.fit(), doctest::Contains("trainer.cuda_graph=on: task 'mlp-spirals' cannot run its step "
                                                        "as a CUDA graph: trainer.accumulate > 1"),
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
