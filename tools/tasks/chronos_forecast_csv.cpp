#include "harmonic/tools/tasks/chronos_forecast_csv.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harmonic/core/atomic_file.h"
#include "harmonic/data/csv.h"
#include "harmonic/tools/report/plot.h"

namespace hm::train {
namespace {

constexpr std::string_view kFn = "forecast";

// Column c of a (rows, columns) float64 table without its leading and trailing missing values,
// and the row of its first value.
std::pair<std::vector<double>, int64_t> trimmed_column(const std::vector<double>& table, int64_t rows, int64_t cols,
                                                       int64_t c) {
  int64_t first = 0, last = rows;
  while (first < rows && !std::isfinite(table[first * cols + c])) ++first;
  while (last > first && !std::isfinite(table[(last - 1) * cols + c])) --last;
  std::vector<double> x;
  for (int64_t r = first; r < last; ++r) x.push_back(table[r * cols + c]);
  return {x, first};
}

// The date axis: --date-column's cells (a text column, or a numeric one of whole numbers such as
// years, which then is no series), or else the first text column that reads as dates.
void find_dates(const ForecastCsvOptions& o, data::CsvTable& table, std::vector<double>& values, ForecastCsvResult& r) {
  if (!o.date_column.empty()) {
    std::vector<std::string> cells;
    auto text = std::find(table.text_names.begin(), table.text_names.end(), o.date_column);
    auto numeric = std::find(table.names.begin(), table.names.end(), o.date_column);
    if (text != table.text_names.end()) {
      cells = table.text_cells[static_cast<size_t>(text - table.text_names.begin())];
    } else {
      check(numeric != table.names.end(), kFn, "'{}': --date-column '{}' is not a column of it (columns: {}{}{})", o.csv,
            o.date_column, fmt::join(table.names, ", "), table.text_names.empty() ? "" : ", ",
            fmt::join(table.text_names, ", "));
      const auto c = numeric - table.names.begin(), cols = std::ssize(table.names);
      check(cols > 1, kFn, "'{}': --date-column '{}' is the only numeric column: nothing is left to forecast", o.csv,
            o.date_column);
      std::vector<double> rest;
      for (size_t i = 0; i < values.size(); ++i) {
        const auto col = static_cast<int64_t>(i) % cols;
        if (col != c) {
          rest.push_back(values[i]);
          continue;
        }
        const double v = values[i];
        check(std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15, kFn,
              "'{}': --date-column '{}' row {}: {} is not a date or a whole number", o.csv, o.date_column,
              static_cast<int64_t>(i) / cols + 1, v);
        cells.push_back(fmt::format("{}", static_cast<int64_t>(v)));
      }
      values = std::move(rest);
      table.names.erase(numeric);
    }
    std::string why;
    r.dates = data::parse_date_axis(cells, &why);
    check(r.dates.has_value(), kFn, "'{}': --date-column '{}' does not read as evenly spaced dates: {}", o.csv,
          o.date_column, why);
    r.date_column = o.date_column;
    return;
  }
  std::string first_why;
  for (size_t t = 0; t < table.text_names.size(); ++t) {
    std::string why;
    r.dates = data::parse_date_axis(table.text_cells[t], &why);
    if (r.dates) {
      r.date_column = table.text_names[t];
      return;
    }
    if (first_why.empty()) first_why = fmt::format("column '{}' is not read as dates ({})", table.text_names[t], why);
  }
  if (!first_why.empty()) r.notes.push_back(first_why + ": the forecast rows are numbered steps");
}

int64_t observed(const std::vector<double>& x) {
  int64_t n = 0;
  for (double v : x) n += std::isfinite(v);
  return n;
}

std::string plot_path(const std::string& plot, const std::string& name, size_t series) {
  if (series == 1) return plot;
  std::filesystem::path p(plot);
  std::string safe;
  for (char ch : name) safe += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ? ch : '_';
  return (p.parent_path() / (p.stem().string() + "_" + safe + p.extension().string())).string();
}

// History (the last `show_history` points; 0: all) and the forecast fan. The median starts at
// the last observed point, so the forecast continues the line; with dates, the x ticks are dates.
void draw(const ForecastCsvResult& r, size_t i, const std::string& path, int64_t show_history) {
  const std::vector<double>& h = r.histories[i];
  const models::SeriesForecast& f = r.forecasts[i];
  const auto T = std::ssize(h), H = std::ssize(f.median);
  report::LinePlot plot;
  plot.title = fmt::format("{}: forecast of {} steps ({} paths)", r.names[i], H, f.paths.size());
  plot.x_label = "time step";
  plot.y_label = r.names[i];
  if (r.dates) {
    plot.x_label = fmt::format("{} (one step: {})", r.date_column, r.dates->step_name());
    plot.x_tick_label = [&dates = *r.dates, first = r.first_rows[i]](double x) {
      return x == std::round(x) ? dates.label(first + static_cast<int64_t>(x)) : std::string();
    };
  }
  report::Series hist{.label = "history"};
  for (int64_t t = show_history > 0 ? std::max<int64_t>(0, T - show_history) : 0; t < T; ++t)
    hist.x.push_back(static_cast<double>(t)), hist.y.push_back(h[t]);
  report::Series median{.label = "median, 10-90% band", .color = 1};
  if (std::isfinite(h.back())) {
    median.x.push_back(static_cast<double>(T - 1));
    median.y.push_back(h.back()), median.y_low.push_back(h.back()), median.y_high.push_back(h.back());
  }
  for (int64_t s = 0; s < H; ++s) {
    median.x.push_back(static_cast<double>(T + s));
    median.y.push_back(f.median[s]);
    median.y_low.push_back(f.quantiles.front()[s]);
    median.y_high.push_back(f.quantiles.back()[s]);
  }
  plot.series = {hist, median};
  if (i < r.truths.size()) {
    report::Series truth{.label = "held out", .dashed = true, .color = 2};
    for (int64_t s = 0; s < H; ++s) truth.x.push_back(static_cast<double>(T + s)), truth.y.push_back(r.truths[i][s]);
    plot.series.push_back(truth);
  }
  report::save(plot, path);
}

}  // namespace

ForecastCsvResult forecast_csv(models::Chronos& model, const ForecastCsvOptions& o) {
  check(o.horizon >= 1 && o.samples >= 1 && o.context >= 0 && o.season_length >= 1 && o.plot_history >= -1, kFn,
        "need horizon >= 1, samples >= 1, context >= 0, season length >= 1 and plot history >= 0, got {}, {}, {}, {}, "
        "{}",
        o.horizon, o.samples, o.context, o.season_length, o.plot_history);
  if (!o.plot.empty()) {
    const std::string ext = std::filesystem::path(o.plot).extension().string();
    check(ext == ".png" || ext == ".svg", kFn, "--plot '{}' must end in .png or .svg", o.plot);
  }
  data::CsvTable table = data::read_csv(
      o.csv, {.delimiter = o.delimiter,
              .header = data::CsvHeader::Auto,
              .columns = o.columns,
              .dtype = DType::Float64,
              .missing_as_nan = true,
              .skip_text_columns = true,
              .columns_name = "--column",  // the errors speak to `harmonic forecast` users
              .delimiter_name = "--delimiter"});
  ForecastCsvResult r;
  if (!table.skipped.empty())
    r.notes.push_back(fmt::format("skipped non-numeric column(s): {}", fmt::join(table.skipped, ", ")));
  const int64_t rows = table.values.size(0);
  std::vector<double> values = table.values.contiguous().to_vector();
  find_dates(o, table, values, r);
  const auto cols = std::ssize(table.names);
  const int64_t need = kMinObserved + (o.eval ? o.horizon : 0);
  for (int64_t c = 0; c < cols; ++c) {
    const std::string& name = table.names[c];
    auto [x, first_row] = trimmed_column(values, rows, cols, c);
    check(!x.empty(), kFn, "'{}' column '{}': no observed value (every cell is missing)", o.csv, name);
    if (o.eval) {
      check(std::ssize(x) >= need && observed(std::vector<double>(x.begin(), x.end() - o.horizon)) >= kMinObserved,
            kFn,
            "'{}' column '{}': {} points; --eval holds out the last {} and needs {} observed values before them "
            "(at least {} points)",
            o.csv, name, x.size(), o.horizon, kMinObserved, need);
      r.truths.emplace_back(x.end() - o.horizon, x.end());
      x.resize(x.size() - static_cast<size_t>(o.horizon));
    }
    const int64_t seen = observed(x);
    check(seen >= kMinObserved, kFn, "'{}' column '{}': {} observed value(s); forecasting needs at least {}", o.csv,
          name, seen, kMinObserved);
    double lo = INFINITY, hi = -INFINITY;
    for (double v : x)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (lo == hi)
      r.notes.push_back(fmt::format(
          "column '{}' is constant ({}): forecast anyway (mean scaling maps it to {}); the model learnt from varying "
          "series, so expect a roughly flat forecast{}",
          name, lo, lo == 0 ? "0" : (lo > 0 ? "+1" : "-1"),
          o.eval ? ", and its MASE is undefined (zero seasonal-naive error): left out of the relative scores" : ""));
    r.names.push_back(name);
    r.histories.push_back(std::move(x));
    r.first_rows.push_back(first_row);
  }
  r.forecasts = models::forecast(
      model, r.histories,
      {.horizon = o.horizon, .samples = o.samples, .seed = o.seed, .context_length = o.context, .top_k = o.top_k});
  if (o.eval) {
    for (size_t i = 0; i < r.names.size(); ++i)
      r.scores.push_back(nn::score_series(r.histories[i], r.truths[i], r.forecasts[i].median, r.forecasts[i].quantiles,
                                          o.season_length));
    r.relative = nn::relative_scores(r.scores);
  }
  if (!o.out.empty()) write_file_atomic(o.out, forecast_table(r));
  if (!o.plot.empty()) {
    const int64_t context = o.context > 0 ? o.context : model.config.context_length;
    for (size_t i = 0; i < r.names.size(); ++i) {
      r.plots.push_back(plot_path(o.plot, r.names[i], r.names.size()));
      draw(r, i, r.plots.back(), o.plot_history >= 0 ? o.plot_history : std::max<int64_t>(context, 3 * o.horizon));
    }
  }
  return r;
}

std::string forecast_table(const ForecastCsvResult& r) {
  const std::vector<double> levels = nn::forecast_quantile_levels();
  std::string out = r.dates ? "series,step,date,median" : "series,step,median";
  for (double q : levels) out += fmt::format(",q{:g}", q);
  if (!r.truths.empty()) out += ",actual";
  out += "\n";
  for (size_t i = 0; i < r.names.size(); ++i) {
    const models::SeriesForecast& f = r.forecasts[i];
    const bool quote = r.names[i].find_first_of(",\"") != std::string::npos;
    std::string name = r.names[i];
    if (quote) {
      std::string escaped;
      for (char ch : name) escaped += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      name = "\"" + escaped + "\"";
    }
    for (size_t h = 0; h < f.median.size(); ++h) {
      out += fmt::format("{},{},", name, h + 1);
      if (r.dates) out += r.dates->label(r.first_rows[i] + std::ssize(r.histories[i]) + static_cast<int64_t>(h)) + ",";
      out += fmt::format("{:.6g}", f.median[h]);
      for (const auto& q : f.quantiles) out += fmt::format(",{:.6g}", q[h]);
      if (!r.truths.empty()) out += fmt::format(",{:.6g}", r.truths[i][h]);
      out += "\n";
    }
  }
  return out;
}

}  // namespace hm::train
