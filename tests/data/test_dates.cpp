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
  const std::string gap = reason({"2024-01-01", "2024-01-02", "2024-01-04"});
  CHECK(gap.find("not evenly spaced") != std::string::npos);
  CHECK(gap.find("rows 2-3") != std::string::npos);
  CHECK(reason({"Jan 1949", "Feb 1949"}).find("row 1: 'Jan 1949'") != std::string::npos);
  CHECK(reason({"2024-01-01 24:00", "2024-01-02 01:00"}).find("is not a date") != std::string::npos);
}
