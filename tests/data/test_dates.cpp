// A CSV date column as a time axis (data/dates.h): parsing, the inferred step, labels past the end.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "harmonic/data/dates.h"

using hm::data::DateAxis;
using hm::data::parse_date_axis;

namespace {

DateAxis axis(const std::vector<std::string>& cells) {
  std::string why;
  std::optional<DateAxis> a = parse_date_axis(cells, &why);
  INFO(why);
  REQUIRE(a.has_value());
  return *a;
}

std::string reason(const std::vector<std::string>& cells) {
  std::string why;
  CHECK_FALSE(parse_date_axis(cells, &why).has_value());
  return why;
}

}  // namespace

TEST_CASE("date axis: calendar steps (months, quarters, years, month ends) extend past the last row") {
  std::vector<std::string> monthly;
  for (int y = 1949; y <= 1960; ++y)
    for (int m = 1; m <= 12; ++m) monthly.push_back(fmt::format("{}-{:02}", y, m));
  const DateAxis a = axis(monthly);
  CHECK(a.step_months == 1);
  CHECK(a.step_name() == "month");
  CHECK(a.label(0) == "1949-01");
  CHECK(a.label(143) == "1960-12");
  CHECK(a.label(144) == "1961-01");  // the first forecast row
  CHECK(a.label(155) == "1961-12");
  CHECK(a.label(-1) == "1948-12");

  const DateAxis q = axis({"2020-01", "2020-04", "2020-07"});
  CHECK(q.step_name() == "3 months");
  CHECK(q.label(3) == "2020-10");
  CHECK(q.label(4) == "2021-01");

  const DateAxis y = axis({"1990", "1991", "1992"});
  CHECK(y.step_name() == "year");
  CHECK(y.label(10) == "2000");

  // Month ends: 31, 28/29, 31, 30, ... stay on each month's last day.
  const DateAxis e = axis({"2023-01-31", "2023-02-28", "2023-03-31"});
  CHECK(e.month_end);
  CHECK(e.label(3) == "2023-04-30");
  CHECK(e.label(13) == "2024-02-29");

  // The 15th of every month, written with slashes (labels come out ISO).
  const DateAxis mid = axis({"2021/11/15", "2021/12/15", "2022/01/15"});
  CHECK(mid.step_months == 1);
  CHECK(mid.label(3) == "2022-02-15");
}

TEST_CASE("date axis: fixed steps (days, weeks, hours) cross month and leap-day boundaries") {
  const DateAxis d = axis({"2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01"});
  CHECK(d.step_seconds == 86400);
  CHECK(d.step_name() == "day");
  CHECK(d.label(4) == "2024-03-02");
  CHECK(d.label(308) == "2024-12-31");
  CHECK(d.label(309) == "2025-01-01");

  const DateAxis w = axis({"2024-12-23", "2024-12-30", "2025-01-06"});
  CHECK(w.step_name() == "week");
  CHECK(w.label(3) == "2025-01-13");

  const DateAxis h = axis({"2024-01-01 22:00", "2024-01-01 23:00", "2024-01-02T00:00"});
  CHECK(h.step_name() == "hour");
  CHECK(h.label(3) == "2024-01-02 01:00");

  const DateAxis s = axis({"2024-01-01 00:00:00", "2024-01-01 00:00:30"});
  CHECK(s.step_name() == "30 seconds");
  CHECK(s.label(2) == "2024-01-01 00:01:00");
}

TEST_CASE("date axis: what is not an evenly spaced date column, and why") {
  CHECK(reason({"2024-01-01"}).find("1 row(s)") != std::string::npos);
  CHECK(reason({"2024-01-01", "d1"}).find("row 2: 'd1' is not a date") != std::string::npos);
  CHECK(reason({"2023-02-28", "2023-02-30"}).find("'2023-02-30' is not a date") != std::string::npos);
  CHECK(reason({"2024-01", "2024-01-02"}).find("written differently") != std::string::npos);
  CHECK(reason({"2024-01-02", "2024-01-01"}).find("is not after row 1") != std::string::npos);
  const std::string uneven = reason({"2024-01-01", "2024-01-02", "2024-01-09", "2024-01-10"});
  CHECK(uneven.find("not evenly spaced") != std::string::npos);
  CHECK(uneven.find("row 2 and row 3") != std::string::npos);
  CHECK(uneven.find("6 rows missing for 4 present") != std::string::npos);
  CHECK(parse_date_axis({"2024-01-02", "2024-01-01"}, nullptr, {7, 8}) == std::nullopt);
  std::string why;
  parse_date_axis({"2024-01-02", "2024-01-01"}, &why, {7, 8});
  CHECK(why.find("line 8 ('2024-01-01') is not after line 7") != std::string::npos);  // file lines when given
  CHECK(reason({"Jan 1949", "Feb 1949"}).find("row 1: 'Jan 1949'") != std::string::npos);
  CHECK(reason({"2024-01-01 24:00", "2024-01-02 01:00"}).find("is not a date") != std::string::npos);
}

TEST_CASE("date axis: day-first, month-first and month-year cells, and an ambiguous column says what it assumed") {
  const DateAxis dmy = axis({"13/01/2020", "14/01/2020", "15/01/2020"});  // 13 can only be a day
  CHECK(dmy.step_name() == "day");
  CHECK(dmy.label(3) == "2020-01-16");
  CHECK(dmy.assumed.empty());
  const DateAxis mdy = axis({"01/13/2020", "01/14/2020", "01/15/2020"});
  CHECK(mdy.label(0) == "2020-01-13");
  CHECK(mdy.assumed.empty());
  const DateAxis dots = axis({"1.3.2021", "1.4.2021", "1.5.2021"});  // day first, 1-digit fields
  CHECK(dots.step_name() == "month");
  CHECK(dots.label(3) == "2021-06-01");
  CHECK_FALSE(dots.assumed.empty());  // also Jan 3, 4, 5 read month first
  CHECK(dots.assumed.find("day first") != std::string::npos);
  // Month first wins where day first is not evenly spaced (12 Jan 2020, then 1 and 2 Jan 2021).
  const DateAxis monthly = axis({"12/01/2020", "01/01/2021", "02/01/2021"});
  CHECK(monthly.step_name() == "month");
  CHECK(monthly.label(0) == "2020-12-01");
  CHECK(monthly.assumed.find("month first, MM/DD/YYYY): the day-first reading is not evenly spaced") !=
        std::string::npos);
  const DateAxis my = axis({"11.2019", "12.2019", "01.2020"});
  CHECK(my.step_months == 1);
  CHECK(my.label(3) == "2020-02");
  CHECK(axis({"2019-3", "2019-6", "2019-9"}).step_name() == "3 months");
  CHECK(reason({"13.13.2020", "14.13.2020"}).find("not a date") != std::string::npos);
}

TEST_CASE("date axis: rows missing from the column are gaps at their place, and the season of a step") {
  const DateAxis a = axis({"2020-01", "2020-02", "2020-04", "2020-05"});
  CHECK(a.step_months == 1);
  CHECK(a.positions == std::vector<int64_t>{0, 1, 3, 4});
  CHECK(a.label(2) == "2020-03");
  CHECK(a.label(5) == "2020-06");
  const DateAxis d = axis({"2024-01-01", "2024-01-02", "2024-01-04"});
  CHECK(d.positions == std::vector<int64_t>{0, 1, 3});
  CHECK(axis({"2020-01", "2020-02"}).positions == std::vector<int64_t>{0, 1});
  using hm::data::season_of_step;
  CHECK(season_of_step(axis({"2020-01", "2020-02"})) == 12);
  CHECK(season_of_step(axis({"2020-01", "2020-04"})) == 4);
  CHECK(season_of_step(axis({"2020", "2021"})) == 1);
  CHECK(season_of_step(axis({"2020-01-01", "2020-01-02"})) == 7);
  CHECK(season_of_step(axis({"2020-01-01 00:00", "2020-01-01 01:00"})) == 24);
  CHECK(season_of_step(axis({"2020-01-06", "2020-01-13"})) == 1);  // weekly: no season
}
