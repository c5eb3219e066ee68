// The `chronos` task (tools/tasks/chronos_task.cpp), loading / saving its forecasters
// (tools/tasks/chronos_model.h) and the CSV forecaster under `harmonic forecast`
// (tools/tasks/chronos_forecast_csv.h).
#include <cmath>
#include <fstream>
#include <memory>

#include "harmonic/models/chronos.h"
#include "tests/helpers.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "harmonic/tools/tasks/chronos_model.h"
#include "harmonic/tools/train/config.h"
#include "harmonic/tools/train/trainer.h"

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

// An untrained 1 + 1 layer forecaster: forecast_csv's plumbing is under test, not its accuracy.
std::unique_ptr<models::Chronos> tiny_forecaster(Generator* gen) {
  models::ChronosConfig mc;
  mc.t5.vocab_size = 4096;
  mc.t5.d_model = 16, mc.t5.d_kv = 8, mc.t5.d_ff = 32, mc.t5.num_layers = 1, mc.t5.num_heads = 2;
  mc.context_length = 16;
  return std::make_unique<models::Chronos>(mc, data::SeriesTokenizer::uniform(4096), gen);
}

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

TEST_CASE("forecast_csv: columns, missing values, eval tails, and clear errors") {
  ScratchDir dir;
  Generator gen(3);
  auto owned = tiny_forecaster(&gen);
  models::Chronos& model = *owned;
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir.str() + "/" + name;
    std::ofstream(path) << text;
    return path;
  };
  std::string text = "date,a,b\n";
  for (int t = 0; t < 30; ++t)
    text += fmt::format("d{},{},{}\n", t, 1 + t % 5, t == 10 ? std::string("") : (t >= 27 ? "" : std::to_string(t)));
  const std::string good = write("good.csv", text);
  train::ForecastCsvResult r =
      train::forecast_csv(model, {.csv = good, .horizon = 3, .samples = 5, .out = dir.str() + "/fc.csv",
                                  .plot = dir.str() + "/fc.svg", .eval = true, .season_length = 5});
  CHECK(r.names == std::vector<std::string>{"a", "b"});
  CHECK(r.notes.at(0).find("date") != std::string::npos);
  CHECK(r.histories[0].size() == 27);  // 30 - 3 held out
  CHECK(r.histories[1].size() == 24);  // trailing blanks trimmed (27), then 3 held out
  CHECK(std::isnan(r.histories[1][10]));  // the inner gap stays missing
  CHECK(r.truths[1] == std::vector<double>{24, 25, 26});
  REQUIRE(r.relative.has_value());
  CHECK(r.relative->series + r.relative->skipped == 2);
  CHECK(r.plots == std::vector<std::string>{dir.str() + "/fc_a.svg", dir.str() + "/fc_b.svg"});
  CHECK(std::filesystem::exists(dir.str() + "/fc_b.svg"));
  const std::string table = test::read_text(dir.str() + "/fc.csv");
  CHECK(table.starts_with("series,step,median,q0.1,q0.2,q0.3,q0.4,q0.5,q0.6,q0.7,q0.8,q0.9,actual\n"));
  CHECK(std::count(table.begin(), table.end(), '\n') == 1 + 2 * 3);

  const std::string constant = write("constant.csv", "x\n4\n4\n4\n4\n4\n4\n");
  r = train::forecast_csv(model, {.csv = constant, .horizon = 2, .samples = 3});
  CHECK(r.notes.at(0).find("constant") != std::string::npos);
  CHECK(r.forecasts[0].median.size() == 2);

  const std::string headerless = write("headerless.csv", "1,5\n2,6\n3,7\n4,8\n5,9\n6,10\n");
  r = train::forecast_csv(model, {.csv = headerless, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"0", "1"});
  CHECK(r.histories[0].size() == 6);  // the first line is data

  const std::string short_csv = write("short.csv", "x\n1\n2\n\n3\n");
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = short_csv, .horizon = 2}); },
                    {"[forecast]", "'x'", "3 observed value(s)", "at least 5"}));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = good, .columns = {"nosuch"}, .horizon = 2}); },
                    {"no column 'nosuch'", "date, a, b"}));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = good, .horizon = 28, .eval = true}); },
                    {"--eval holds out the last 28"}));
  const std::string broken = write("broken.csv", "x,y\n1,2\n\"3,4\n");
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = broken, .horizon = 2}); }, {"unterminated quote"}));
  const std::string texty = write("texty.csv", "x\n1\n2\nabc\n4\n5\n6\n");
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = texty, .horizon = 2}); },
                    {"'abc' is not a number", "select numeric columns with --column"}));  // the CLI's flag
  std::string semicolons = "date;a\n";
  for (int t = 0; t < 10; ++t) semicolons += fmt::format("d{};{}\n", t, t);
  const std::string semi = write("semi.csv", semicolons);
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = semi, .horizon = 2}); },
                    {"no numeric column", "look ';'-separated", "set --delimiter to ';'"}));
  r = train::forecast_csv(model, {.csv = semi, .delimiter = ';', .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"a"});
  const std::string empty_col = write("empty.csv", "x,y\n1,\n2,\n3,NA\n4,\n5,\n");
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = empty_col, .horizon = 2}); },
                    {"column 'y'", "no observed value"}));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = good, .horizon = 2, .plot = "x.jpg"}); }, {".png or .svg"}));
}

TEST_CASE("forecast_csv: a date column labels the forecast rows and the plot, extended by its step") {
  ScratchDir dir;
  Generator gen(3);
  auto owned = tiny_forecaster(&gen);
  models::Chronos& model = *owned;
  // Monthly rows from 2023-01; column b starts two rows late (its first date is 2023-03).
  std::string text = "month,a,b,year\n";
  for (int t = 0; t < 24; ++t)
    text += fmt::format("{}-{:02},{},{},{}\n", 2023 + t / 12, t % 12 + 1, 10 + t % 4, t < 2 ? "" : std::to_string(t),
                        2000 + t);
  const std::string path = dir.str() + "/monthly.csv";
  std::ofstream(path) << text;

  train::ForecastCsvResult r = train::forecast_csv(
      model, {.csv = path, .columns = {"a", "b"}, .horizon = 3, .samples = 4, .out = dir.str() + "/fc.csv",
              .plot = dir.str() + "/fc.svg", .plot_history = 0});
  REQUIRE(r.dates.has_value());
  CHECK(r.date_column == "month");
  CHECK(r.first_rows == std::vector<int64_t>{0, 2});
  const std::string table = test::read_text(dir.str() + "/fc.csv");
  CHECK(table.starts_with("series,step,date,median,"));
  CHECK(table.find("\na,1,2025-01,") != std::string::npos);
  CHECK(table.find("\nb,3,2025-03,") != std::string::npos);
  // The plot: the whole history (plot_history 0), date ticks, the median joined to the last point.
  const std::string svg = test::read_text(dir.str() + "/fc_a.svg");
  CHECK(svg.find("2023-01") != std::string::npos);
  CHECK(svg.find("month (one step: month)") != std::string::npos);

  // --eval: the held-out rows keep their own dates.
  r = train::forecast_csv(model, {.csv = path, .columns = {"a"}, .horizon = 2, .samples = 3, .eval = true});
  CHECK(train::forecast_table(r).find("\na,1,2024-11,") != std::string::npos);

  // A numeric column of years named as the date column is the axis, not a series.
  r = train::forecast_csv(model, {.csv = path, .columns = {"a", "year"}, .horizon = 2, .samples = 3,
                                  .date_column = "year"});
  CHECK(r.names == std::vector<std::string>{"a"});
  CHECK(r.dates->step_name() == "year");
  CHECK(train::forecast_table(r).find("\na,1,2024,") != std::string::npos);

  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = path, .columns = {"a"}, .horizon = 2, .date_column = "when"}); },
                    {"--date-column 'when' is not a column", "month"}));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = path, .columns = {"a", "b"}, .horizon = 2, .date_column = "b"}); },
                    {"--date-column 'b' row 1", "not a date or a whole number"}));
  // Dates that are not evenly spaced: numbered steps, and a note that says why.
  const std::string gappy = dir.str() + "/gappy.csv";
  std::ofstream(gappy) << "day,v\n2024-01-01,1\n2024-01-02,2\n2024-01-04,3\n2024-01-05,4\n2024-01-06,5\n";
  r = train::forecast_csv(model, {.csv = gappy, .horizon = 2, .samples = 3});
  CHECK_FALSE(r.dates.has_value());
  CHECK(r.notes.back().find("not evenly spaced") != std::string::npos);
  CHECK(train::forecast_table(r).starts_with("series,step,median,"));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = gappy, .horizon = 2, .date_column = "day"}); },
                    {"--date-column 'day' does not read as evenly spaced dates", "rows 2-3"}));
}

