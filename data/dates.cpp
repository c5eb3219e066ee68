#include "harmonic/data/dates.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

namespace hm::data {
namespace {

using std::chrono::day;
using std::chrono::month;
using std::chrono::sys_days;
using std::chrono::year;
using std::chrono::year_month_day;
using std::chrono::year_month_day_last;
using Precision = DateAxis::Precision;

constexpr int64_t kDay = 86400;

struct Cell {
  int64_t y = 0, m = 1, d = 1, hh = 0, mm = 0, ss = 0;
  Precision precision = Precision::Year;
};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Reads exactly `n` digits at s[i], advancing i.
std::optional<int64_t> digits(std::string_view s, size_t& i, size_t n) {
  if (i + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[i + k];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  i += n;
  return v;
}

bool last_day_of_month(const Cell& c) {
  const year_month_day_last last{year{static_cast<int>(c.y)} / month{static_cast<unsigned>(c.m)} / std::chrono::last};
  return static_cast<unsigned>(last.day()) == static_cast<unsigned>(c.d);
}

std::optional<Cell> parse_cell(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  Cell c;
  size_t i = 0;
  auto y = digits(s, i, 4);
  if (!y) return std::nullopt;
  c.y = *y;
  auto separator = [&] { return i < s.size() && (s[i] == '-' || s[i] == '/') ? (++i, true) : false; };
  if (i < s.size()) {
    if (!separator()) return std::nullopt;
    auto m = digits(s, i, 2);
    if (!m || *m < 1 || *m > 12) return std::nullopt;
    c.m = *m, c.precision = Precision::Month;
  }
  if (i < s.size()) {
    if (!separator()) return std::nullopt;
    auto d = digits(s, i, 2);
    if (!d) return std::nullopt;
    c.d = *d, c.precision = Precision::Day;
    const year_month_day ymd{year{static_cast<int>(c.y)}, month{static_cast<unsigned>(c.m)},
                             day{static_cast<unsigned>(c.d)}};
    if (!ymd.ok()) return std::nullopt;
  }
  if (i < s.size()) {
    if (s[i] != ' ' && s[i] != 'T') return std::nullopt;
    ++i;
    auto hh = digits(s, i, 2);
    if (!hh || *hh > 23 || i >= s.size() || s[i++] != ':') return std::nullopt;
    auto mm = digits(s, i, 2);
    if (!mm || *mm > 59) return std::nullopt;
    c.hh = *hh, c.mm = *mm, c.precision = Precision::Minute;
    if (i < s.size()) {
      if (s[i++] != ':') return std::nullopt;
      auto ss = digits(s, i, 2);
      if (!ss || *ss > 59 || i != s.size()) return std::nullopt;
      c.ss = *ss, c.precision = Precision::Second;
    }
  }
  return c;
}

int64_t seconds_of(const Cell& c) {
  const sys_days days{year_month_day{year{static_cast<int>(c.y)}, month{static_cast<unsigned>(c.m)},
                                     day{static_cast<unsigned>(c.d)}}};
  return static_cast<int64_t>(days.time_since_epoch().count()) * kDay + c.hh * 3600 + c.mm * 60 + c.ss;
}

int64_t month_index(const Cell& c) { return c.y * 12 + (c.m - 1); }
int64_t time_of_day(const Cell& c) { return c.hh * 3600 + c.mm * 60 + c.ss; }

std::string format(const Cell& c, Precision p) {
  switch (p) {
    case Precision::Year: return fmt::format("{:04}", c.y);
    case Precision::Month: return fmt::format("{:04}-{:02}", c.y, c.m);
    case Precision::Day: return fmt::format("{:04}-{:02}-{:02}", c.y, c.m, c.d);
    case Precision::Minute: return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}", c.y, c.m, c.d, c.hh, c.mm);
    case Precision::Second:
      return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", c.y, c.m, c.d, c.hh, c.mm, c.ss);
  }
  return "";
}

Cell cell_of_seconds(int64_t t) {
  const int64_t days = floor_div(t, kDay), rest = t - days * kDay;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  return {.y = static_cast<int>(ymd.year()), .m = static_cast<unsigned>(ymd.month()),
          .d = static_cast<unsigned>(ymd.day()), .hh = rest / 3600, .mm = rest % 3600 / 60, .ss = rest % 60};
}

std::string units(int64_t n, const char* one) { return n == 1 ? std::string(one) : fmt::format("{} {}s", n, one); }

// A fixed step in its largest whole unit: "day", "7 days" -> "week", "30 seconds".
std::string seconds_name(int64_t step) {
  if (step % kDay == 0) return step % (7 * kDay) == 0 ? units(step / (7 * kDay), "week") : units(step / kDay, "day");
  if (step % 3600 == 0) return units(step / 3600, "hour");
  if (step % 60 == 0) return units(step / 60, "minute");
  return units(step, "second");
}

}  // namespace

std::string DateAxis::label(int64_t row) const {
  if (step_months > 0) {
    const Cell first = cell_of_seconds(first_seconds);
    const int64_t index = month_index(first) + row * step_months;
    Cell c = first;
    c.y = floor_div(index, 12), c.m = index - c.y * 12 + 1;
    const year_month_day_last last{year{static_cast<int>(c.y)} / month{static_cast<unsigned>(c.m)} / std::chrono::last};
    const int64_t last_day = static_cast<unsigned>(last.day());
    c.d = month_end ? last_day : std::min(c.d, last_day);
    return format(c, precision);
  }
  return format(cell_of_seconds(first_seconds + row * step_seconds), precision);
}

std::string DateAxis::step_name() const {
  if (step_months > 0) return step_months % 12 == 0 ? units(step_months / 12, "year") : units(step_months, "month");
  return seconds_name(step_seconds);
}

std::optional<DateAxis> parse_date_axis(const std::vector<std::string>& cells, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return std::optional<DateAxis>{};
  };
  if (cells.size() < 2) return fail(fmt::format("{} row(s): a step needs two dates", cells.size()));
  std::vector<Cell> parsed;
  for (size_t r = 0; r < cells.size(); ++r) {
    std::optional<Cell> c = parse_cell(cells[r]);
    if (!c) return fail(fmt::format("row {}: '{}' is not a date (YYYY, YYYY-MM, YYYY-MM-DD[ HH:MM[:SS]])", r + 1, cells[r]));
    if (!parsed.empty() && c->precision != parsed.front().precision)
      return fail(fmt::format("row {}: '{}' is written differently from row 1's '{}'", r + 1, cells[r], cells[0]));
    parsed.push_back(*c);
  }
  DateAxis axis;
  axis.precision = parsed.front().precision;
  axis.first_seconds = seconds_of(parsed.front());
  // Calendar months: every row on the same day (or each month's last day) at the same time.
  bool same_day = true, month_ends = true;
  for (const Cell& c : parsed) {
    same_day &= c.d == parsed.front().d && time_of_day(c) == time_of_day(parsed.front());
    month_ends &= last_day_of_month(c) && time_of_day(c) == time_of_day(parsed.front());
  }
  if (same_day || month_ends) {
    const int64_t step = month_index(parsed[1]) - month_index(parsed[0]);
    bool regular = step > 0;
    for (size_t r = 1; regular && r < parsed.size(); ++r) regular = month_index(parsed[r]) - month_index(parsed[r - 1]) == step;
    if (regular) {
      axis.step_months = step;
      axis.month_end = !same_day;
      return axis;
    }
  }
  const int64_t step = seconds_of(parsed[1]) - seconds_of(parsed[0]);
  if (step <= 0) return fail(fmt::format("row 2 ('{}') is not after row 1 ('{}')", cells[1], cells[0]));
  for (size_t r = 2; r < parsed.size(); ++r)
    if (seconds_of(parsed[r]) - seconds_of(parsed[r - 1]) != step)
      return fail(fmt::format("not evenly spaced: rows 1-2 are {} apart, rows {}-{} ('{}', '{}') are not",
                              seconds_name(step), r, r + 1, cells[r - 1], cells[r]));
  axis.step_seconds = step;
  return axis;
}

}  // namespace hm::data
