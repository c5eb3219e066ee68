// The chronos task on real series: read_real_series and left_padded
// (tools/tasks/chronos_real_series.h), training windows from a directory of CSVs with TSMixup
// mixtures of them, and validate() on another directory with `harmonic forecast --eval`'s protocol.
#include <cmath>
#include <fstream>

#include "harmonic/nn/forecast_metrics.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/tasks/chronos_real_series.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::test;

namespace {

// A monthly CSV of n points: a season of 12 on a trend, value = base + t + 10 sin(2 pi t / 12).
void write_monthly(const std::string& path, int64_t n, double base, bool gap = false) {
  std::ofstream f(path);
  f << "date,value\n";
  for (int64_t t = 0; t < n; ++t) {
    f << fmt::format("{:04d}-{:02d},", 1990 + t / 12, t % 12 + 1);
    if (!(gap && t == n / 2)) f << base + static_cast<double>(t) + 10 * std::sin(2 * M_PI * static_cast<double>(t) / 12);
    f << "\n";
  }
}

train::Json tiny_real(const std::string& dir, std::vector<std::string> extra) {
  train::Json c = train::default_config(train::find_task("chronos"));
  for (const char* s : {"series=16", "mixup_series=4", "held_out_series=4", "series_length=48", "context_length=24",
                        "horizon=4", "d_model=16", "d_ff=32", "num_layers=1", "num_heads=2", "d_kv=8",
                        "windows_per_series=2", "batch_size=8", "eval_samples=4", "dropout=0", "trainer.log_every=100",
                        "trainer.eval_every=0", "trainer.steps=4"})
    train::apply_override(c, s);
  train::apply_override(c, "real_series=" + dir + "/train");
  train::apply_override(c, "validation_series=" + dir + "/validation");
  for (const std::string& s : extra) train::apply_override(c, s);
  return c;
}

}  // namespace

TEST_CASE("left_padded: NaN in front so a window may start min_past points into the series") {
  const std::vector<double> x(40, 1.0);
  std::vector<double> p = train::left_padded(x, 24, 4, 8);  // 24 - 8 = 16 NaN
  REQUIRE(p.size() == 56);
  CHECK(std::isnan(p[15]));
  CHECK(p[16] == 1.0);
  CHECK(train::left_padded(x, 24, 4, 24) == x);  // min_past = context: no padding
  // Shorter than a window: padded to one whole window (its context sees 10 - 4 points).
  p = train::left_padded(std::vector<double>(10, 2.0), 24, 4, 20);
  CHECK(p.size() == 28);
  CHECK(p[18] == 2.0);
  CHECK(std::isnan(p[17]));
  CHECK(throws_with([&] { train::left_padded(x, 24, 4, 25); }, {"[left_padded]", "min_past", "25"}));
}

TEST_CASE("relative_scores_by_group: each data set weighs the same") {
  // Relative MASE 2 and 8 in set a (geometric mean 4), 1 in set b: by group sqrt(4 * 1) = 2.
  const std::vector<nn::SeriesScores> s = {{.mase = 2, .wql = 1, .naive_mase = 1, .naive_wql = 1},
                                           {.mase = 8, .wql = 1, .naive_mase = 1, .naive_wql = 1},
                                           {.mase = 1, .wql = 3, .naive_mase = 1, .naive_wql = 1},
                                           {.mase = 1, .wql = 1, .naive_mase = 0, .naive_wql = 0}};
  const nn::RelativeScores r = nn::relative_scores_by_group(s, {"a", "a", "b", "c"});
  CHECK(r.relative_mase == doctest::Approx(2.0));
  CHECK(r.relative_wql == doctest::Approx(std::sqrt(3.0)));
  CHECK(r.series == 2);  // set c's one series has no naive error: skipped
  CHECK(r.skipped == 1);
  CHECK(nn::relative_scores(s).relative_mase == doctest::Approx(std::cbrt(16.0)));
  CHECK(throws_with([&] { nn::relative_scores_by_group(s, {"a"}); }, {"[relative_scores_by_group]", "4 scores", "1 group"}));
}

TEST_CASE("read_real_series: every numeric column of every CSV, trimmed, named by file, bad directories named") {
  ScratchDir dir;
  std::filesystem::create_directories(dir.str() + "/d");
  write_monthly(dir.str() + "/d/a.csv", 30, 100, /*gap=*/true);
  {
    std::ofstream f(dir.str() + "/d/b.csv");
    f << "year,x,y\n1990,,5\n1991,2,6\n1992,3,7\n1993,4,\n";
  }
  std::ofstream(dir.str() + "/d/notes.txt") << "not a series";
  const train::RealSeries r = train::read_real_series(dir.str() + "/d");
  REQUIRE(r.names == std::vector<std::string>{"a", "b/x", "b/y"});
  CHECK(r.values[0].size() == 30);
  CHECK(std::isnan(r.values[0][15]));  // the inner gap stays missing
  CHECK(r.values[1] == std::vector<double>{2, 3, 4});  // trimmed; the year column is the axis
  CHECK(r.values[2] == std::vector<double>{5, 6, 7});
  CHECK(throws_with([&] { train::read_real_series(dir.str() + "/missing"); }, {"[read_real_series]", "missing"}));
  std::filesystem::create_directories(dir.str() + "/empty");
  CHECK(throws_with([&] { train::read_real_series(dir.str() + "/empty"); }, {"[read_real_series]", "no .csv"}));
}

TEST_CASE("chronos task: real training series and their mixtures, validated on other CSVs as `forecast --eval`") {
  ScratchDir dir;
  std::filesystem::create_directories(dir.str() + "/train");
  std::filesystem::create_directories(dir.str() + "/validation");
  write_monthly(dir.str() + "/train/long.csv", 120, 50);
  write_monthly(dir.str() + "/train/short.csv", 14, 10);  // shorter than a window: padded
  write_monthly(dir.str() + "/train/tiny.csv", 6, 10);    // fewer than 5 + horizon points: left out
  write_monthly(dir.str() + "/validation/v1.csv", 60, 200);
  write_monthly(dir.str() + "/validation/v2.csv", 48, 30);

  const train::Json synth_only = tiny_real(dir.str(), {"real_series=", "validation_series="});
  const train::Json config =
      tiny_real(dir.str(), {"real_mixup_series=5", "real_windows_per_series=3", "min_past=12", "cross_attention_bias=true"});
  auto base = train::find_task("chronos").make(synth_only, Device::cpu());
  auto task = train::find_task("chronos").make(config, Device::cpu());
  CHECK(base->validate().empty());
  // Synthetic: (16 + 4) series x 2 windows; real: (2 kept + 5 mixtures) x 3 windows.
  CHECK(base->train_loader().dataset().size() == 40);
  CHECK(task->train_loader().dataset().size() == 40 + 21);

  train::Trainer trainer(*task, "chronos", config, dir.str() + "/run");
  trainer.log = nullptr;
  trainer.fit();
  const train::Json v = task->validate();
  REQUIRE(v.contains("mase"));
  CHECK(v["series"] == 2);
  // The same numbers as `harmonic forecast --eval --horizon 12` on that directory with the task's settings.
  train::ForecastCsvOptions o;
  o.csv = dir.str() + "/validation";
  o.horizon = 12, o.samples = 4, o.seed = 1234, o.pmf_quantiles = true, o.eval = true;
  const train::ForecastCsvResult r = train::forecast_csv(dynamic_cast<models::Chronos&>(task->model()), o);
  CHECK(v["mase"].get<double>() == r.relative->relative_mase);
  CHECK(v["wql"].get<double>() == r.relative->relative_wql);
  CHECK(r.season_lengths == std::vector<int64_t>{12, 12});
  // A saved model keeps its cross-attention bias: the same forecasts after loading.
  models::Chronos& model = dynamic_cast<models::Chronos&>(task->model());
  REQUIRE(model.t5->cross_bias != nullptr);
  train::save_chronos(dir.str() + "/saved", model, config);
  train::ChronosForecaster loaded = train::load_chronos(dir.str() + "/saved");
  REQUIRE(loaded.model->t5->cross_bias != nullptr);
  o.csv = dir.str() + "/validation/v1.csv";
  CHECK(train::forecast_csv(*loaded.model, o).forecasts[0].paths == train::forecast_csv(model, o).forecasts[0].paths);
  CHECK(v["sets"] == 2);  // v1 and v2: two sets of one series each
  CHECK(v["mase_sets"].get<double>() == doctest::Approx(v["mase"].get<double>()).epsilon(1e-12));

  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_real(dir.str(), {"min_past=25"}), Device::cpu()); },
                    {"[chronos]", "min_past", "25"}));
  CHECK(throws_with(
      [&] { train::find_task("chronos").make(tiny_real(dir.str(), {"real_series=", "real_mixup_series=3"}), Device::cpu()); },
      {"[chronos]", "real_mixup_series 3 needs real_series"}));
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_real(dir.str() + "/nope", {}), Device::cpu()); },
                    {"[read_real_series]", "nope"}));
}

TEST_CASE("chronos task: validation_generated scores KernelSynth series of their own stream, as evaluate() its held-out ones") {
  ScratchDir dir;
  const train::Json config = tiny_real(dir.str(), {"real_series=", "validation_series=", "validation_generated=5"});
  auto task = train::find_task("chronos").make(config, Device::cpu());
  const train::Json v = task->validate(), t = task->evaluate();
  for (const char* k : {"loss", "smoothness", "mase", "wql", "mase_period", "wql_period"}) {
    CAPTURE(k);
    REQUIRE(v.contains(k));
    CHECK(std::isfinite(v[k].get<double>()));
    CHECK(v[k].get<double>() != t[std::string("test_") + k].get<double>());  // other series
  }
  CHECK(v["series"].get<int64_t>() <= 5);
  // The held-out set does not depend on the validation count.
  auto plain = train::find_task("chronos").make(tiny_real(dir.str(), {"real_series=", "validation_series="}), Device::cpu());
  const train::Json again = plain->evaluate();  // equal up to the last bits of threaded float sums
  for (const auto& [k, value] : t.items()) {
    CAPTURE(k);
    CHECK(again.at(k).get<double>() == doctest::Approx(value.get<double>()).epsilon(1e-9));
  }
  CHECK(plain->validate().empty());
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_real(dir.str(), {"real_series=", "validation_generated=2"}), Device::cpu()); },
                    {"[chronos]", "not both"}));
  CHECK(throws_with([&] { train::find_task("chronos").make(tiny_real(dir.str(), {"real_series=", "validation_series=", "validation_generated=-1"}), Device::cpu()); },
                    {"[chronos]", "validation_generated must be >= 0", "-1"}));
}
