// `harmonic forecast`'s CSV forecaster (tools/tasks/chronos_forecast_csv.h): columns, missing
// values, eval tails, dates and errors. The files people have (years, keys, ';' with decimal
// commas, byte-order marks, day-first dates, gaps) are in test_forecast_csv_files.cpp.
#include <cmath>
#include <fstream>
#include <memory>

#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "tests/forecast_helpers.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::ScratchDir;
using hm::test::throws_with;
using hm::test::tiny_forecaster;

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
  train::ForecastCsvResult r = train::forecast_csv(model, {.csv = good,
                                                           .horizon = 3,
                                                           .samples = 5,
                                                           .out = dir.str() + "/fc.csv",
                                                           .plot = dir.str() + "/fc.svg",
                                                           .eval = true,
                                                           .season_length = 5});
  CHECK(r.names == std::vector<std::string>{"a", "b"});
  CHECK(r.notes.at(0).find("date") != std::string::npos);
  CHECK(r.histories[0].size() == 27);     // 30 - 3 held out
  CHECK(r.histories[1].size() == 24);     // trailing blanks trimmed (27), then 3 held out
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

  const std::string headerless = write("headerless.csv", "3,5\n2,6\n3,7\n4,8\n5,9\n6,10\n");
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
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = semi, .delimiter = ',', .horizon = 2}); },
                    {"no numeric column", "look ';'-separated", "set --delimiter to ';'"}));
  r = train::forecast_csv(model, {.csv = semi, .horizon = 2, .samples = 3});  // ';' detected
  CHECK(r.names == std::vector<std::string>{"a"});
  CHECK(r.notes.at(0).find("assumed cells separated by ';'") != std::string::npos);
  const std::string empty_col = write("empty.csv", "x,y\n1,\n2,\n3,NA\n4,\n5,\n");
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = empty_col, .horizon = 2}); },
                    {"column 'y'", "no observed value"}));
  CHECK(
      throws_with([&] { train::forecast_csv(model, {.csv = good, .horizon = 2, .plot = "x.jpg"}); }, {".png or .svg"}));
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

  train::ForecastCsvResult r = train::forecast_csv(model, {.csv = path,
                                                           .columns = {"a", "b"},
                                                           .horizon = 3,
                                                           .samples = 4,
                                                           .out = dir.str() + "/fc.csv",
                                                           .plot = dir.str() + "/fc.svg",
                                                           .plot_history = 0});
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
  r = train::forecast_csv(model,
                          {.csv = path, .columns = {"a", "year"}, .horizon = 2, .samples = 3, .date_column = "year"});
  CHECK(r.names == std::vector<std::string>{"a"});
  CHECK(r.dates->step_name() == "year");
  CHECK(train::forecast_table(r).find("\na,1,2024,") != std::string::npos);

  CHECK(throws_with(
      [&] { train::forecast_csv(model, {.csv = path, .columns = {"a"}, .horizon = 2, .date_column = "when"}); },
      {"--date-column 'when' is not a column", "month"}));
  CHECK(throws_with(
      [&] {
        train::forecast_csv(model, {.csv = path, .columns = {"a", "b"}, .horizon = 2, .date_column = "b"});
      },
      {"--date-column 'b' line 2", "not a date or a whole number"}));
  // Dates that are not evenly spaced even with gaps: numbered steps, and a note that says why.
  const std::string uneven = dir.str() + "/uneven.csv";
  std::ofstream(uneven) << "day,v\n2024-01-01,1\n2024-01-02,2\n2024-01-09,3\n2024-01-10,4\n2024-01-11,5\n";
  r = train::forecast_csv(model, {.csv = uneven, .horizon = 2, .samples = 3});
  CHECK_FALSE(r.dates.has_value());
  CHECK(r.notes.back().find("not evenly spaced") != std::string::npos);
  CHECK(r.notes.back().find("line 3 and line 4") != std::string::npos);
  CHECK(train::forecast_table(r).starts_with("series,step,median,"));
  CHECK(throws_with([&] { train::forecast_csv(model, {.csv = uneven, .horizon = 2, .date_column = "day"}); },
                    {"--date-column 'day' does not read as evenly spaced dates", "line 3 and line 4"}));
}
