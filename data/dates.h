// A CSV's date column as a regular time axis: its cells parsed as calendar dates, the step
// between rows inferred, and dates past its last row extrapolated (the rows a forecast adds).
//
//   std::optional<data::DateAxis> axis = data::parse_date_axis(cells, &why);  // "1949-01", ...
//   axis->label(150);  // "1961-07": row 150, twelve rows after the last of 144 monthly rows
//
// Accepted cells: YYYY, YYYY-MM, YYYY-MM-DD, and YYYY-MM-DD with a time HH:MM or HH:MM:SS after
// a space or 'T' ('/' may replace '-'). The step is a whole number of months when every row falls
// on the same day of the month, or on the last day of each month (monthly, quarterly, yearly
// series), else a whole number of seconds (daily, weekly, hourly). Labels keep the cells'
// precision (a YYYY-MM column gives YYYY-MM labels).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hm::data {

struct DateAxis {
  enum class Precision { Year, Month, Day, Minute, Second };
  Precision precision = Precision::Day;
  int64_t first_seconds = 0;  // row 0 as seconds since 1970-01-01 (UTC, no leap seconds)
  int64_t step_months = 0;    // > 0: calendar months between rows (step_seconds is 0)
  int64_t step_seconds = 0;   // > 0: seconds between rows
  bool month_end = false;     // a monthly step on each month's last day

  // The date of row `row` (negative or past the column's end: extrapolated by the step).
  std::string label(int64_t row) const;
  // One unit of the step for messages and axis titles: "month", "3 months", "day", "7 days", "hour".
  std::string step_name() const;
};

// The axis of `cells` (one per row), or nullopt with the reason in *why: a cell is not a date, the
// column has fewer than two rows, or its dates are not evenly spaced (the first row that breaks it
// is named).
std::optional<DateAxis> parse_date_axis(const std::vector<std::string>& cells, std::string* why = nullptr);

}  // namespace hm::data
