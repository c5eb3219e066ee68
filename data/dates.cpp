#include "harmonic/data/dates.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <numeric>

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

enum class Order { DayFirst, MonthFirst };  // of DD-MM-YYYY / MM-DD-YYYY cells

// A date: digit groups of 1-4 digits joined by one separator ('-', '/' or '.'), laid out as
// Y, Y-M, Y-M-D, M-Y or D-M-Y / M-D-Y (per `order`), then an optional time.
std::optional<Cell> parse_cell(std::string_view s, Order order) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  std::vector<std::pair<int64_t, size_t>> f;  // (value, digits)
  size_t i = 0;
  char sep = 0;
  for (;;) {
    const size_t b = i;
    int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - b < 4) v = v * 10 + (s[i++] - '0');
    if (i == b) return std::nullopt;
    f.emplace_back(v, i - b);
    if (f.size() == 3 || i >= s.size() || (s[i] != '-' && s[i] != '/' && s[i] != '.')) break;
    if (sep != 0 && s[i] != sep) return std::nullopt;
    sep = s[i++];
  }
  auto len = [&](size_t k, size_t lo, size_t hi) { return f[k].second >= lo && f[k].second <= hi; };
  Cell c;
  if (f.size() == 1 && len(0, 4, 4)) {
    c.y = f[0].first;
  } else if (f.size() >= 2 && len(0, 4, 4) && len(1, 1, 2) && (f.size() == 2 || len(2, 1, 2))) {
    c.y = f[0].first, c.m = f[1].first, c.precision = Precision::Month;
    if (f.size() == 3) c.d = f[2].first, c.precision = Precision::Day;
  } else if (f.size() == 2 && len(0, 1, 2) && len(1, 4, 4)) {
    c.m = f[0].first, c.y = f[1].first, c.precision = Precision::Month;
  } else if (f.size() == 3 && len(0, 1, 2) && len(1, 1, 2) && len(2, 4, 4)) {
    const bool day_first = order == Order::DayFirst;
    c.d = f[day_first ? 0 : 1].first, c.m = f[day_first ? 1 : 0].first, c.y = f[2].first;
    c.precision = Precision::Day;
  } else {
    return std::nullopt;
  }
  if (c.m < 1 || c.m > 12) return std::nullopt;
  const year_month_day ymd{year{static_cast<int>(c.y)}, month{static_cast<unsigned>(c.m)},
                           day{static_cast<unsigned>(c.d)}};
  if (!ymd.ok()) return std::nullopt;
  if (i < s.size()) {
    if (c.precision != Precision::Day || (s[i] != ' ' && s[i] != 'T')) return std::nullopt;
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

namespace {

// The axis of cells already parsed: a step of months or of seconds, the largest that every row
// falls on, with the rows it skips as gaps (no more missing than present).
std::optional<DateAxis> build_axis(const std::vector<Cell>& parsed, const std::vector<std::string>& cells,
                                   const std::function<std::string(size_t)>& where, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return std::optional<DateAxis>{};
  };
  DateAxis axis;
  axis.precision = parsed.front().precision;
  axis.first_seconds = seconds_of(parsed.front());
  // Calendar months: every row on the same day (or each month's last day) at the same time.
  bool same_day = true, month_ends = true;
  for (const Cell& c : parsed) {
    same_day &= c.d == parsed.front().d && time_of_day(c) == time_of_day(parsed.front());
    month_ends &= last_day_of_month(c) && time_of_day(c) == time_of_day(parsed.front());
  }
  const bool months = same_day || month_ends;
  std::vector<int64_t> ticks;
  for (const Cell& c : parsed) ticks.push_back(months ? month_index(c) : seconds_of(c));
  int64_t step = 0;
  for (size_t r = 1; r < ticks.size(); ++r) {
    if (ticks[r] <= ticks[r - 1])
      return fail(fmt::format("{} ('{}') is not after {} ('{}')", where(r), cells[r], where(r - 1), cells[r - 1]));
    step = std::gcd(step, ticks[r] - ticks[r - 1]);
  }
  if (months) {
    axis.step_months = step;
    axis.month_end = !same_day;
  } else {
    axis.step_seconds = step;
  }
  for (int64_t t : ticks) axis.positions.push_back((t - ticks.front()) / step);
  const auto present = std::ssize(ticks), missing = axis.positions.back() + 1 - present;
  if (missing > present) {
    const int64_t first_step = ticks[1] - ticks[0];
    size_t r = 2;
    while (r < ticks.size() && ticks[r] - ticks[r - 1] == first_step) ++r;
    DateAxis first = axis;
    (months ? first.step_months : first.step_seconds) = first_step;
    const size_t q = std::min(r, ticks.size() - 1);
    return fail(
        fmt::format("not evenly spaced: {} and {} are one step apart (one step: {}), {} and {} ('{}', '{}') are "
                    "not; a step of {} would leave {} rows missing for {} present",
                    where(0), where(1), first.step_name(), where(q - 1), where(q), cells[q - 1], cells[q],
                    axis.step_name(), missing, present));
  }
  return axis;
}

}  // namespace

std::optional<DateAxis> parse_date_axis(const std::vector<std::string>& cells, std::string* why,
                                        const std::vector<int64_t>& lines) {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return std::optional<DateAxis>{};
  };
  auto where = [&](size_t r) {
    return lines.size() == cells.size() ? fmt::format("line {}", lines[r]) : fmt::format("row {}", r + 1);
  };
  if (cells.size() < 2) return fail(fmt::format("{} row(s): a step needs two dates", cells.size()));
  std::optional<DateAxis> readings[2];
  std::string reasons[2];
  bool differ = false;  // a cell reads as a different date day first than month first
  for (Order order : {Order::DayFirst, Order::MonthFirst}) {
    const auto k = static_cast<size_t>(order);
    std::vector<Cell> parsed;
    for (size_t r = 0; r < cells.size() && reasons[k].empty(); ++r) {
      std::optional<Cell> c = parse_cell(cells[r], order);
      if (!c) {
        reasons[k] = fmt::format(
            "{}: '{}' is not a date (YYYY, YYYY-MM, YYYY-MM-DD, MM.YYYY, DD.MM.YYYY, MM/DD/YYYY[ "
            "HH:MM[:SS]])",
            where(r), cells[r]);
      } else if (!parsed.empty() && c->precision != parsed.front().precision) {
        reasons[k] =
            fmt::format("{}: '{}' is written differently from {}'s '{}'", where(r), cells[r], where(0), cells[0]);
      } else {
        std::optional<Cell> other =
            parse_cell(cells[r], order == Order::DayFirst ? Order::MonthFirst : Order::DayFirst);
        differ |= other && (other->d != c->d || other->m != c->m);
        parsed.push_back(*c);
      }
    }
    if (reasons[k].empty()) readings[k] = build_axis(parsed, cells, where, &reasons[k]);
  }
  if (!readings[0] && !readings[1]) return fail(reasons[0]);
  // Every cell read both ways (no field above 12) and the readings differ: say which one was taken.
  const bool ambiguous = differ && parse_cell(cells[0], Order::MonthFirst) &&
                         std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
                           return parse_cell(c, Order::DayFirst) && parse_cell(c, Order::MonthFirst);
                         });
  if (!ambiguous) return readings[0] ? readings[0] : readings[1];
  // The evenly spaced reading, the one with fewer gaps, day first on a tie.
  const bool month_first =
      !readings[0] || (readings[1] && readings[1]->positions.back() < readings[0]->positions.back());
  DateAxis axis = *readings[month_first ? 1 : 0];
  const std::optional<DateAxis>& other = readings[month_first ? 0 : 1];
  axis.assumed = fmt::format("read dates such as '{}' as {} ({}): the {} reading {}", cells[0], axis.label(0),
                             month_first ? "month first, MM/DD/YYYY" : "day first, DD/MM/YYYY",
                             month_first ? "day-first" : "month-first",
                             !other ? "is not evenly spaced"
                             : other->positions.back() == axis.positions.back()
                                 ? fmt::format("is evenly spaced too (one step: {})", other->step_name())
                                 : std::string("leaves more rows missing"));
  return axis;
}

int64_t season_of_step(const DateAxis& axis) {
  if (axis.step_months > 0) return 12 % axis.step_months == 0 ? 12 / axis.step_months : 1;
  const int64_t s = axis.step_seconds;
  if (s == kDay) return 7;
  if (s > 0 && s < kDay && kDay % s == 0) return kDay / s;
  return 1;
}

}  // namespace hm::data
