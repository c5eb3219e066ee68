#include "harmonic/tools/tasks/chronos_forecast_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "harmonic/core/file_read.h"
#include "harmonic/data/csv.h"

namespace hm::train {
namespace {

constexpr std::string_view kForecastInput = "forecast";

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Names of numeric columns that number or date the rows (an axis), not a series.
bool axis_name(const std::string& name) {
  static const std::set<std::string> names = {"",         "#",     "year", "yr",   "index",  "idx",   "row",
                                              "rownames", "obs",   "t",    "time", "period", "date",  "quarter",
                                              "qtr",      "month", "week", "day",  "hour",   "minute"};
  const std::string n = lower(name);
  return names.count(n) > 0 || n.starts_with("unnamed");
}

// Names of numeric columns that say which series or record a row belongs to (a key).
bool key_name(const std::string& name) {
  static const std::set<std::string> names = {"id", "key", "series", "series_id", "unique_id", "item_id", "code"};
  return names.count(lower(name)) > 0;
}

// 0, 1, 2, ... or 1, 2, 3, ...: a row number.
bool counts_rows(const std::vector<double>& x) {
  if (x.size() < 2 || !(x[0] == 0 || x[0] == 1)) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] != x[0] + static_cast<double>(i)) return false;
  return true;
}

bool whole_years(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return v == std::floor(v) && v >= 1000 && v <= 9999; });
}

std::string file_text(const std::string& path) {
  check_readable_file(path, kForecastInput);
  std::ifstream in(path, std::ios::binary);
  check(in.good(), kForecastInput, "cannot open '{}'", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string shown(char c) { return c == '\t' ? std::string("a tab") : fmt::format("'{}'", c); }

// Places each row at its date's position on the axis: the rows a gap skips become missing values.
void fill_gaps(ForecastInput& in, const std::vector<std::string>& cells, const std::vector<int64_t>& lines) {
  const std::vector<int64_t>& pos = in.dates->positions;
  const int64_t length = pos.back() + 1;
  if (length == std::ssize(pos)) return;
  for (std::vector<double>& x : in.columns) {
    std::vector<double> placed(static_cast<size_t>(length), NAN);
    for (size_t r = 0; r < pos.size(); ++r) placed[pos[r]] = x[r];
    x = std::move(placed);
  }
  int64_t gaps = 0, first = 0;
  for (size_t r = 1; r < pos.size(); ++r)
    if (pos[r] - pos[r - 1] > 1 && gaps++ == 0) first = static_cast<int64_t>(r);
  const int64_t skipped = pos[first] - pos[first - 1] - 1;
  const std::string dates = skipped == 1
                                ? in.dates->label(pos[first - 1] + 1)
                                : in.dates->label(pos[first - 1] + 1) + " to " + in.dates->label(pos[first] - 1);
  in.notes.push_back(fmt::format(
      "the dates skip {} between line {} ('{}') and line {} ('{}'){}: kept as missing values on the date axis", dates,
      lines[first - 1], cells[first - 1], lines[first], cells[first],
      gaps > 1 ? fmt::format(" and {} more row(s) in {} more gap(s)", length - std::ssize(pos) - skipped, gaps - 1)
               : std::string()));
}

}  // namespace

ForecastInput read_forecast_input(const ForecastCsvOptions& o) {
  ForecastInput in;
  const std::string text = file_text(o.csv);
  const data::CsvDialect found = data::detect_csv_dialect(text);
  const char delimiter = o.delimiter != 0 ? o.delimiter : found.delimiter;
  const char decimal = o.decimal != 0 ? o.decimal : (delimiter == found.delimiter ? found.decimal : '.');
  if ((o.delimiter == 0 && delimiter != ',') || (o.decimal == 0 && decimal == ','))
    in.notes.push_back(
        fmt::format("assumed cells separated by {} with decimal {} (set --delimiter or --decimal to "
                    "override)",
                    shown(delimiter), decimal == ',' ? "commas (3,5 = 3.5)" : "points"));
  data::CsvTable table = data::parse_csv(text,
                                         {.delimiter = delimiter,
                                          .decimal = decimal,
                                          .header = data::CsvHeader::Auto,
                                          .columns = o.columns,
                                          .dtype = DType::Float64,
                                          .missing_as_nan = true,
                                          .skip_text_columns = true,
                                          .columns_name = "--column",  // the errors speak to `harmonic forecast` users
                                          .delimiter_name = "--delimiter",
                                          .decimal_name = "--decimal"},
                                         o.csv);
  if (!table.skipped.empty())
    in.notes.push_back(fmt::format("skipped non-numeric column(s): {}", fmt::join(table.skipped, ", ")));
  const int64_t rows = table.values.size(0);
  const auto ncols = std::ssize(table.names);
  const std::vector<double> flat = table.values.contiguous().to_vector();
  std::vector<std::vector<double>> cols(static_cast<size_t>(ncols), std::vector<double>(static_cast<size_t>(rows)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ncols; ++c) cols[c][r] = flat[r * ncols + c];
  std::vector<std::string> names = table.names;
  auto take = [&](size_t c) {
    std::vector<double> x = std::move(cols[c]);
    cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(c));
    names.erase(names.begin() + static_cast<std::ptrdiff_t>(c));
    return x;
  };

  // Axis and key columns are no series unless --column names them.
  std::string year_column;
  std::vector<double> years;
  if (o.columns.empty()) {
    std::vector<std::string> axes, keys;
    for (size_t c = 0; c < names.size();) {
      // Counting rows marks an index only in the first numeric column, and only beside another.
      const bool key = key_name(names[c]),
                 axis = !key && (axis_name(names[c]) || (c == 0 && names.size() > 1 && counts_rows(cols[c])));
      if ((!key && !axis) || (!o.date_column.empty() && names[c] == o.date_column)) {
        ++c;
        continue;
      }
      if (key) {
        std::set<double> distinct;
        int64_t present = 0;
        for (double v : cols[c])
          if (std::isfinite(v)) distinct.insert(v), ++present;
        check(distinct.size() <= 1 || std::ssize(distinct) == present, kForecastInput,
              "'{}': column '{}' looks like a series key ({} different values in {} rows): the file looks long "
              "(one row per key and date); write one column per series, or name the column to forecast with --column",
              o.csv, names[c], distinct.size(), present);
        keys.push_back(names[c]);
        take(c);
        continue;
      }
      axes.push_back(names[c]);
      const std::string name = names[c];
      std::vector<double> x = take(c);
      if (year_column.empty() && whole_years(x)) year_column = name, years = std::move(x);
    }
    if (!axes.empty())
      in.notes.push_back(
          fmt::format("assumed column(s) {} number the rows, not a series (name one with --column to "
                      "forecast it)",
                      fmt::join(axes, ", ")));
    if (!keys.empty())
      in.notes.push_back(
          fmt::format("assumed column(s) {} to be a key, not a series (name one with --column to "
                      "forecast it)",
                      fmt::join(keys, ", ")));
    check(!names.empty(), kForecastInput,
          "'{}': every numeric column numbers or keys the rows ({}): name the column(s) to forecast with --column",
          o.csv, fmt::join(axes.empty() ? keys : axes, ", "));
  }

  // The date axis: --date-column, else the first text column of dates, else a column of years.
  std::vector<std::string> date_cells;
  std::string first_why;
  auto read_axis = [&](const std::vector<std::string>& cells, const std::string& name) {
    std::string why;
    in.dates = data::parse_date_axis(cells, &why, table.lines);
    check(in.dates.has_value() || o.date_column.empty(), kForecastInput,
          "'{}': --date-column '{}' does not read as evenly spaced dates: {}", o.csv, name, why);
    if (in.dates) in.date_column = name, date_cells = cells;
    if (!in.dates && first_why.empty()) first_why = fmt::format("column '{}' is not read as dates ({})", name, why);
    return in.dates.has_value();
  };
  auto year_cells = [&](const std::vector<double>& x, const std::string& name) {
    std::vector<std::string> cells;
    for (size_t r = 0; r < x.size(); ++r) {
      check(std::isfinite(x[r]) && x[r] == std::floor(x[r]) && std::abs(x[r]) < 1e15, kForecastInput,
            "'{}': --date-column '{}' line {}: {} is not a date or a whole number", o.csv, name, table.lines[r], x[r]);
      cells.push_back(fmt::format("{}", static_cast<int64_t>(x[r])));
    }
    return cells;
  };
  if (!o.date_column.empty()) {
    auto text_col = std::find(table.text_names.begin(), table.text_names.end(), o.date_column);
    auto numeric = std::find(names.begin(), names.end(), o.date_column);
    if (text_col != table.text_names.end()) {
      read_axis(table.text_cells[static_cast<size_t>(text_col - table.text_names.begin())], o.date_column);
    } else {
      check(numeric != names.end(), kForecastInput, "'{}': --date-column '{}' is not a column of it (columns: {}{}{})", o.csv,
            o.date_column, fmt::join(table.names, ", "), table.text_names.empty() ? "" : ", ",
            fmt::join(table.text_names, ", "));
      check(names.size() > 1, kForecastInput, "'{}': --date-column '{}' is the only numeric column: nothing is left to forecast",
            o.csv, o.date_column);
      const std::vector<double>& x = cols[static_cast<size_t>(numeric - names.begin())];
      std::vector<std::string> cells = year_cells(x, o.date_column);
      take(static_cast<size_t>(numeric - names.begin()));
      read_axis(cells, o.date_column);
    }
  } else {
    for (size_t t = 0; t < table.text_names.size() && !in.dates; ++t)
      read_axis(table.text_cells[t], table.text_names[t]);
    if (!in.dates && !year_column.empty()) read_axis(year_cells(years, year_column), year_column);
    if (!in.dates && !first_why.empty()) in.notes.push_back(first_why + ": the forecast rows are numbered steps");
  }
  in.names = std::move(names);
  in.columns = std::move(cols);
  if (in.dates) {
    if (!in.dates->assumed.empty()) in.notes.push_back("assumed: " + in.dates->assumed);
    fill_gaps(in, date_cells, table.lines);
  }
  in.season_length = o.season_length;
  if (o.season_length == 0) {
    in.season_length = in.dates ? data::season_of_step(*in.dates) : 1;
    if (o.eval)
      in.notes.push_back(in.dates ? fmt::format("assumed season length {} from the dates (one step: {}; set "
                                                "--season-length to override)",
                                                in.season_length, in.dates->step_name())
                                  : "assumed season length 1 (no dates to infer it from; set --season-length)");
  }
  return in;
}

}  // namespace hm::train
