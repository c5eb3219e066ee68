// The `chronos` task (tools/tasks/chronos_task.cpp) and loading / saving its forecasters
// (tools/tasks/chronos_model.h); the CSV forecaster is tested in test_forecast_csv*.cpp.
#include <cmath>
#include <fstream>
#include <memory>

#include "harmonic/models/chronos.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

train::Json tiny_chronos(int64_t steps, const std::vector<std::string>& extra = {}) {
  train::Json c = train::default_config(train::find_task("chronos"));
  for (const char* s : {"series=24", "mixup_series=8", "held_out_series=6", "series_length=48", "context_length=24",
                        "horizon=4", "d_model=16", "d_ff=32", "num_layers=1", "num_heads=2", "d_kv=8",
                        "windows_per_series=4", "batch_size=8", "eval_samples=4", "dropout=0", "trainer.log_every=100",
                        "trainer.eval_every=0"})
    train::apply_override(c, s);
  for (const std::string& s : extra) train::apply_override(c, s);
  train::apply_override(c, fmt::format("trainer.steps={}", steps));
  return c;
}

models::Chronos& chronos_of(train::Task& task) { return dynamic_cast<models::Chronos&>(task.model()); }

}  // namespace

TEST_CASE("chronos task: a tiny linear model trains and evaluate reports loss, MASE, WQL and smoothness") {
  const train::Json config = tiny_chronos(30, {"lr=3e-3"});
  auto task = train::find_task("chronos").make(config, Device::cpu());
  CHECK(chronos_of(*task).fourier_head == nullptr);
  train::Trainer trainer(*task, "chronos", config, "");
  trainer.log = nullptr;
  const train::Json before = trainer.evaluate();
  trainer.fit();
  const train::Json after = trainer.evaluate();
  MESSAGE("chronos tiny: test_loss " << before["test_loss"] << " -> " << after["test_loss"] << ", relative MASE "
                                     << after["test_mase"] << ", WQL " << after["test_wql"]);
  CHECK(before["test_loss"].get<double>() > 7.5);  // ~ ln 4094 = 8.32 at init
  CHECK(after["test_loss"].get<double>() < before["test_loss"].get<double>() - 0.5);
  for (const char* k : {"test_mase", "test_wql", "test_mase_mean", "test_wql_mean", "test_smoothness",
                        "test_mase_period", "test_wql_period"}) {
    CAPTURE(k);
    CHECK(std::isfinite(after[k].get<double>()));
    CHECK(after[k].get<double>() > 0);
  }
  CHECK(after["test_series"].get<int64_t>() >= 1);
  CHECK(after["test_series"].get<int64_t>() <= 6);
  CHECK(after["test_period_series"].get<int64_t>() >= 0);
  CHECK(after["test_period_series"].get<int64_t>() <= 6);
  // T5 (embedding 4096 x 16, untied lm head 16 x 4096, one layer each side) without data.
  CHECK(train::chronos_parameter_count(config) == task->model().num_parameters());
  train::Json fourier = config;
  train::apply_override(fourier, "head=fourier");
  train::apply_override(fourier, "fourier_frequencies=16");
  // The Fourier head adds Linear(16, 2 (16 + 1)) = 16 * 34 + 34 parameters.
  CHECK(train::chronos_parameter_count(fourier) == train::chronos_parameter_count(config) + 16 * 34 + 34);
}

TEST_CASE("chronos task: eval_top_k samples the evaluation's paths from the top-k bins, as Chronos' released code") {
  auto scores = [](int64_t k) {
    auto task = train::find_task("chronos").make(tiny_chronos(0, {fmt::format("eval_top_k={}", k)}), Device::cpu());
    return task->evaluate();
  };
  const train::Json all = scores(0), top1 = scores(1), again = scores(1);
  // Untrained, the pmf is near uniform: the whole pmf's paths wander, the top bin's do not.
  CHECK(top1["test_mase"].get<double>() != all["test_mase"].get<double>());
  CHECK(top1["test_mase"].get<double>() == again["test_mase"].get<double>());
  CHECK(top1["test_loss"].get<double>() == all["test_loss"].get<double>());  // teacher forcing: no sampling
  CHECK(throws_with([] { train::find_task("chronos").make(tiny_chronos(0, {"eval_top_k=-1"}), Device::cpu()); },
                    {"chronos", "eval_top_k must be >= 0", "-1"}));
}

TEST_CASE("chronos task: mixed binning and the Fourier head survive checkpoints and saved models, bad keys are named") {
  ScratchDir dir;
  const train::Json config = tiny_chronos(3, {"head=fourier", "fourier_frequencies=16", "binning=mixed"});
  auto task = train::find_task("chronos").make(config, Device::cpu());
  models::Chronos& model = chronos_of(*task);
  REQUIRE(model.fourier_head != nullptr);
  const std::vector<double> centres = model.bin_centres.to_vector();
  // Mixed: the spacing in the middle differs from the ends' (uniform would be 30 / 4094 everywhere).
  CHECK(std::abs((centres[2048] - centres[2047]) - (centres[1] - centres[0])) > 1e-3);
  train::Trainer trainer(*task, "chronos", config, dir.str() + "/run");
  trainer.log = nullptr;
  trainer.fit();
  std::vector<std::vector<double>> hist = {{1, 2, 3, 2, 1, 2, 3, 2, 1, 2}};
  const models::ForecastOptions o{.horizon = 3, .samples = 4, .seed = 5};
  const auto expected = models::forecast(model, hist, o);
  train::save_chronos(dir.str() + "/saved", model, config);
  for (const std::string& path :
       {dir.str() + "/run", dir.str() + "/run/checkpoint_last.safetensors", dir.str() + "/saved"}) {
    CAPTURE(path);
    train::ChronosForecaster f = train::load_chronos(path);
    CHECK(f.model->bin_centres.to_vector() == centres);
    CHECK(f.model->fourier_head != nullptr);
    CHECK(f.task_config["binning"] == "mixed");
    CHECK(models::forecast(*f.model, hist, o)[0].paths == expected[0].paths);
  }
  CHECK(train::load_chronos(dir.str() + "/run").step == 3);
  std::ofstream(dir.str() + "/other.txt") << "x";
  CHECK(throws_with([&] { train::save_chronos(dir.str(), model, config); }, {"[save_chronos]", "other.txt"}));
  CHECK(throws_with([&] { train::load_chronos(dir.str() + "/nothing"); }, {"[load_chronos]", "nothing"}));
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_chronos(1, {"head=cubic"}), Device::cpu()); },
                    {"[chronos]", "cubic"}));
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_chronos(1, {"binning=log"}), Device::cpu()); },
                    {"[chronos]", "log"}));
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_chronos(1, {"series_length=20"}), Device::cpu()); },
                    {"[chronos]", "series_length 20"}));
}
