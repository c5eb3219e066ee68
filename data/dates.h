// A CSV's date column as a regular time axis: its cells parsed as calendar dates, the step
// between rows inferred, and dates past its last row extrapolated (the rows a forecast adds).
//
//   std::optional<data::DateAxis> axis = data::parse_date_axis(cells, &why);  // "1949-01", ...
//   axis->label(150);  // "1961-07": row 150, twelve rows after the last of 144 monthly rows
//
// Accepted cells: YYYY, YYYY-MM, YYYY-MM-DD, MM-YYYY, DD-MM-YYYY or MM-DD-YYYY, the dates with
// a time HH:MM or HH:MM:SS after a space or 'T' ('/' or '.' may replace '-'; months and days of
// one or two digits). Day-first and month-first dates are told apart by a field above 12; when
// every field is 12 or less, the reading that is evenly spaced wins, and day first on a tie
// (DateAxis::assumed says so). The step is a whole number of months when every row falls on the
// same day of the month, or on the last day of each month (monthly, quarterly, yearly series),
// else a whole number of seconds (daily, weekly, hourly). Rows missing from the column (a month
// without a line) are gaps: the step is the largest that all rows fall on, and
// DateAxis::positions places each cell on the axis, as long as no more rows are missing than
// present. Labels keep the cells' precision (a YYYY-MM column gives YYYY-MM labels), written ISO.
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
  std::vector<int64_t> positions;  // each cell's row on the axis (0, 1, 2, ... without gaps)
  std::string assumed;             // how an ambiguous column was read ("" when it was not)

  // The date of row `row` (negative or past the column's end: extrapolated by the step).
  std::string label(int64_t row) const;
  // One unit of the step for messages and axis titles: "month", "3 months", "day", "7 days", "hour".
  std::string step_name() const;
};

// The axis of `cells` (one per row), or nullopt with the reason in *why: a cell is not a date, the
// column has fewer than two rows, or its dates are not evenly spaced even with gaps (the first row
// that breaks it is named). `lines` (one per cell): the file lines that messages name instead of
// the rows 1, 2, ...
std::optional<DateAxis> parse_date_axis(const std::vector<std::string>& cells, std::string* why = nullptr,
                                        const std::vector<int64_t>& lines = {});

// The number of rows a season spans for this step: 12 monthly, 4 quarterly, 1 yearly, 7 daily,
// 24 hourly (a day of any step that divides one), else 1.
int64_t season_of_step(const DateAxis& axis);

}  // namespace hm::data
