#include "tools/tasks/chronos_forecast_csv.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "data/csv.h"
#include "tools/report/plot.h"

namespace hm::train {
namespace {

constexpr std::string_view kFn = "forecast";

// Column c of a (rows, columns) float64 table without its leading and trailing missing values.
std::vector<double> trimmed_column(const std::vector<double>& table, int64_t rows, int64_t cols, int64_t c) {
  int64_t first = 0, last = rows;
  while (first < rows && !std::isfinite(table[first * cols + c])) ++first;
  while (last > first && !std::isfinite(table[(last - 1) * cols + c])) --last;
  std::vector<double> x;
  for (int64_t r = first; r < last; ++r) x.push_back(table[r * cols + c]);
  return x;
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

void draw(const ForecastCsvResult& r, size_t i, const std::string& path, int64_t show_history) {
  const std::vector<double>& h = r.histories[i];
  const models::SeriesForecast& f = r.forecasts[i];
  const auto T = std::ssize(h), H = std::ssize(f.median);
  report::LinePlot plot;
  plot.title = fmt::format("{}: forecast of {} steps ({} paths)", r.names[i], H, f.paths.size());
  plot.x_label = "time step";
  plot.y_label = "value";
  report::Series hist{.label = "history"};
  for (int64_t t = std::max<int64_t>(0, T - show_history); t < T; ++t) hist.x.push_back(t), hist.y.push_back(h[t]);
  report::Series median{.label = "median, 10-90% band", .color = 1};
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
  check(o.horizon >= 1 && o.samples >= 1 && o.context >= 0 && o.season_length >= 1, kFn,
        "need horizon >= 1, samples >= 1, context >= 0 and season length >= 1, got {}, {}, {}, {}", o.horizon,
        o.samples, o.context, o.season_length);
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
  const int64_t rows = table.values.size(0), cols = table.values.size(1);
  const std::vector<double> values = table.values.contiguous().to_vector();
  const int64_t need = kMinObserved + (o.eval ? o.horizon : 0);
  for (int64_t c = 0; c < cols; ++c) {
    const std::string& name = table.names[c];
    std::vector<double> x = trimmed_column(values, rows, cols, c);
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
  }
  r.forecasts = models::forecast(
      model, r.histories, {.horizon = o.horizon, .samples = o.samples, .seed = o.seed, .context_length = o.context});
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
      draw(r, i, r.plots.back(), std::max<int64_t>(context, 3 * o.horizon));
    }
  }
  return r;
}

std::string forecast_table(const ForecastCsvResult& r) {
  const std::vector<double> levels = nn::forecast_quantile_levels();
  std::string out = "series,step,median";
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
      out += fmt::format("{},{},{:.6g}", name, h + 1, f.median[h]);
      for (const auto& q : f.quantiles) out += fmt::format(",{:.6g}", q[h]);
      if (!r.truths.empty()) out += fmt::format(",{:.6g}", r.truths[i][h]);
      out += "\n";
    }
  }
  return out;
}

}  // namespace hm::train
