// The files people bring to `harmonic forecast` (tools/tasks/chronos_forecast_csv.h): each one
// forecasts the right column, with one note per assumption, or fails naming the fix.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>

#include "harmonic/tools/tasks/chronos_forecast_csv.h"
#include "tests/forecast_helpers.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::ScratchDir;
using hm::test::throws_with;
using hm::test::write_text;

namespace {

bool has_note(const train::ForecastCsvResult& r, const std::string& text) {
  for (const std::string& note : r.notes)
    if (note.find(text) != std::string::npos) return true;
  return false;
}

// Monthly rows from 2020-01 written by `date(year, month)`, values 10 + t % 7 written by `value(v)`.
std::string monthly(const std::string& header, int rows, const std::function<std::string(int, int)>& date,
                    const std::function<std::string(double)>& value, char sep = ',') {
  std::string text = header + "\n";
  for (int t = 0; t < rows; ++t)
    text += date(2020 + t / 12, t % 12 + 1) + sep + value(10 + t % 7 + 0.25 * (t % 2)) + "\n";
  return text;
}

std::string point(double v) { return fmt::format("{}", v); }
std::string comma(double v) {
  std::string s = fmt::format("{}", v);
  std::replace(s.begin(), s.end(), '.', ',');
  return s;
}

}  // namespace

TEST_CASE("forecast files: a year or index column is the rows' axis, never a series unless named") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  std::string text = "year,gdp\n";
  for (int y = 1990; y < 2010; ++y) text += fmt::format("{},{}\n", y, 100 + 3 * (y - 1990) + y % 3);
  const std::string years = write_text(dir.str(), "gdp.csv", text);
  train::ForecastCsvResult r = train::forecast_csv(*model, {.csv = years, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"gdp"});
  CHECK(has_note(r, "assumed column(s) year number the rows"));
  REQUIRE(r.dates.has_value());
  CHECK(r.dates->step_name() == "year");
  CHECK(train::forecast_table(r).find("\ngdp,1,2010,") != std::string::npos);
  r = train::forecast_csv(*model, {.csv = years, .columns = {"year", "gdp"}, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"year", "gdp"});  // named: forecast as asked

  // A pandas index (an unnamed first column) and a first column counting rows.
  std::string pandas = ",value\n", counted = "n,a,b\n";
  for (int t = 0; t < 12; ++t)
    pandas += fmt::format("{},{}\n", t, 5 + t % 3), counted += fmt::format("{},{},{}\n", t + 1, t % 4, 9 - t % 2);
  r = train::forecast_csv(*model, {.csv = write_text(dir.str(), "pandas.csv", pandas), .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"value"});
  r = train::forecast_csv(*model, {.csv = write_text(dir.str(), "counted.csv", counted), .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"a", "b"});
  CHECK(has_note(r, "assumed column(s) n number the rows"));
}

TEST_CASE("forecast files: an id column is a key, and a long file with several keys names the fix") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  std::string one = "id,value\n", two = "id,value\n";
  for (int t = 0; t < 12; ++t) one += fmt::format("7,{}\n", 3 + t % 5), two += fmt::format("{},{}\n", t / 6, t % 5);
  train::ForecastCsvResult r =
      train::forecast_csv(*model, {.csv = write_text(dir.str(), "one.csv", one), .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"value"});
  CHECK(has_note(r, "assumed column(s) id to be a key"));
  const std::string long_file = write_text(dir.str(), "long.csv", two);
  CHECK(throws_with([&] { train::forecast_csv(*model, {.csv = long_file, .horizon = 2}); },
                    {"column 'id' looks like a series key", "2 different values", "one column per series"}));
  r = train::forecast_csv(*model, {.csv = long_file, .columns = {"value"}, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"value"});
}

TEST_CASE("forecast files: semicolon cells with MM.YYYY dates and decimal commas are detected together") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  auto mm_yyyy = [](int y, int m) { return fmt::format("{:02}.{}", m, y); };
  const std::string path = write_text(dir.str(), "umsatz.csv", monthly("Monat;Umsatz", 14, mm_yyyy, comma, ';'));
  train::ForecastCsvResult r = train::forecast_csv(*model, {.csv = path, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"Umsatz"});
  CHECK(has_note(r, "assumed cells separated by ';' with decimal commas"));
  CHECK(r.histories[0].at(1) == 11.25);
  CHECK(r.date_column == "Monat");
  CHECK(train::forecast_table(r).find("\nUmsatz,1,2021-03,") != std::string::npos);
  // MM.YYYY beside decimal points: still dates, not the numbers 1.202, 2.202, ...
  r = train::forecast_csv(*model,
                          {.csv = write_text(dir.str(), "points.csv", monthly("month,sales", 14, mm_yyyy, point)),
                           .horizon = 2,
                           .samples = 3});
  CHECK(r.names == std::vector<std::string>{"sales"});
  CHECK(r.date_column == "month");
}

TEST_CASE("forecast files: ISO dates with decimal commas read, and a forced '.' names the comma") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  auto iso = [](int y, int m) { return fmt::format("{}-{:02}-01", y, m); };
  const std::string path = write_text(dir.str(), "iso.csv", monthly("date;value", 12, iso, comma, ';'));
  train::ForecastCsvResult r = train::forecast_csv(*model, {.csv = path, .horizon = 2, .samples = 3});
  CHECK(r.names == std::vector<std::string>{"value"});
  CHECK(r.histories[0].at(1) == 11.25);
  CHECK(r.dates->step_name() == "month");
  CHECK(throws_with([&] { train::forecast_csv(*model, {.csv = path, .delimiter = ';', .decimal = '.', .horizon = 2}); },
                    {"line 3", "'11,25' is not a number", "values look like decimal commas", "set --decimal to ','"}));
}

TEST_CASE("forecast files: a UTF-8 byte-order mark is no part of the first column's name") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  auto iso = [](int y, int m) { return fmt::format("{}-{:02}", y, m); };
  const std::string path = write_text(dir.str(), "bom.csv", "\xEF\xBB\xBF" + monthly("Month,visitors", 12, iso, point));
  train::ForecastCsvResult r =
      train::forecast_csv(*model, {.csv = path, .horizon = 2, .samples = 3, .date_column = "Month"});
  CHECK(r.date_column == "Month");
  CHECK(r.names == std::vector<std::string>{"visitors"});
}

TEST_CASE("forecast files: dd/mm/yyyy and dd.mm.yyyy dates, and an ambiguous column says what it assumed") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  std::string daily = "day,v\n";
  for (int d = 13; d < 28; ++d) daily += fmt::format("{}/01/2020,{}\n", d, d % 4);
  train::ForecastCsvResult r =
      train::forecast_csv(*model, {.csv = write_text(dir.str(), "daily.csv", daily), .horizon = 2, .samples = 3});
  REQUIRE(r.dates.has_value());
  CHECK(r.dates->step_name() == "day");
  CHECK(train::forecast_table(r).find("\nv,1,2020-01-28,") != std::string::npos);
  CHECK_FALSE(has_note(r, "assumed: read dates"));  // 13/01 can only be day first

  auto dotted = [](int y, int m) { return fmt::format("15.{:02}.{}", m, y); };
  r = train::forecast_csv(
      *model,
      {.csv = write_text(dir.str(), "dotted.csv", monthly("Datum,x", 12, dotted, point)), .horizon = 2, .samples = 3});
  CHECK(r.dates->step_name() == "month");

  auto first_of = [](int y, int m) { return fmt::format("01/{:02}/{}", m, y); };  // also Jan 1, 2, ... month first
  r = train::forecast_csv(
      *model,
      {.csv = write_text(dir.str(), "firsts.csv", monthly("when,x", 12, first_of, point)), .horizon = 2, .samples = 3});
  CHECK(r.dates->step_name() == "month");
  CHECK(has_note(r, "assumed: read dates such as '01/01/2020' as 2020-01-01 (day first, DD/MM/YYYY)"));
}

TEST_CASE("forecast files: one missing month is a missing value at its date, named by its file lines") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  std::string text = "month,v\n";  // 2020-05 is missing
  for (int t = 0; t < 18; ++t)
    if (t != 4) text += fmt::format("{}-{:02},{}\n", 2020 + t / 12, t % 12 + 1, t + 1);
  train::ForecastCsvResult r =
      train::forecast_csv(*model, {.csv = write_text(dir.str(), "gap.csv", text), .horizon = 2, .samples = 3});
  REQUIRE(r.dates.has_value());
  CHECK(r.dates->step_name() == "month");
  REQUIRE(r.histories[0].size() == 18);
  CHECK(std::isnan(r.histories[0][4]));
  CHECK(r.histories[0][5] == 6);
  CHECK(has_note(r, "the dates skip 2020-05 between line 5 ('2020-04') and line 6 ('2020-06')"));
  CHECK(train::forecast_table(r).find("\nv,1,2021-07,") != std::string::npos);
}

TEST_CASE("forecast files: the season comes from the dates, and a horizon of 0 is named as given") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  auto iso = [](int y, int m) { return fmt::format("{}-{:02}", y, m); };
  const std::string path = write_text(dir.str(), "m.csv", monthly("month,v", 30, iso, point));
  train::ForecastCsvResult r = train::forecast_csv(*model, {.csv = path, .horizon = 3, .samples = 3, .eval = true});
  CHECK(r.season_lengths == std::vector<int64_t>{12});
  CHECK(has_note(r, "assumed season length 12 from the dates (one step: month"));
  r = train::forecast_csv(*model, {.csv = path, .horizon = 3, .samples = 3, .eval = true, .season_length = 3});
  CHECK(r.season_lengths == std::vector<int64_t>{3});
  std::string quarters = "q,v\n", plain = "v\n";
  for (int t = 0; t < 12; ++t)
    quarters += fmt::format("{}-{:02},{}\n", 2000 + t / 4, 3 * (t % 4) + 1, t % 3), plain += fmt::format("{}\n", t % 3);
  r = train::forecast_csv(*model,
                          {.csv = write_text(dir.str(), "q.csv", quarters), .horizon = 2, .samples = 3, .eval = true});
  CHECK(r.season_lengths == std::vector<int64_t>{4});
  r = train::forecast_csv(*model,
                          {.csv = write_text(dir.str(), "p.csv", plain), .horizon = 2, .samples = 3, .eval = true});
  CHECK(r.season_lengths == std::vector<int64_t>{1});
  CHECK(has_note(r, "no dates to infer it from"));
  for (int64_t h : {0, -1})
    CHECK(throws_with([&] { train::forecast_csv(*model, {.csv = path, .horizon = h}); },
                      {"--horizon must be at least 1 step", fmt::format("got {}", h)}));
}

TEST_CASE("forecast files: a directory is scored as one table over its files' series") {
  ScratchDir dir;
  Generator gen(3);
  auto model = test::tiny_forecaster(&gen);
  std::filesystem::create_directories(dir.str() + "/set");
  auto iso = [](int y, int m) { return fmt::format("{}-{:02}", y, m); };
  write_text(dir.str() + "/set", "b.csv", monthly("month,v", 30, iso, point));
  std::string two = "x,y\n";
  for (int t = 0; t < 20; ++t) two += fmt::format("{},{}\n", 5 + t % 3, 20 - t % 4);
  write_text(dir.str() + "/set", "a.csv", two);
  write_text(dir.str() + "/set", "notes.txt", "not a csv");
  train::ForecastCsvResult r =
      train::forecast_csv(*model, {.csv = dir.str() + "/set", .horizon = 3, .samples = 3, .eval = true});
  CHECK(r.names == std::vector<std::string>{"a/x", "a/y", "b"});
  CHECK(r.season_lengths == std::vector<int64_t>{1, 1, 12});
  REQUIRE(r.relative.has_value());
  CHECK(r.relative->series + r.relative->skipped == 3);
  CHECK(has_note(r, "b.csv: assumed season length 12"));
  CHECK(train::forecast_table(r).find("\nb,3,") != std::string::npos);
  std::filesystem::create_directories(dir.str() + "/empty");
  CHECK(throws_with([&] { train::forecast_csv(*model, {.csv = dir.str() + "/empty", .horizon = 3}); },
                    {"without .csv files"}));
}
