#include "harmonic/tools/tasks/chronos_forecast_csv.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harmonic/core/atomic_file.h"
#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/tasks/chronos_forecast_input.h"

namespace hm::train {
namespace {

constexpr std::string_view kForecastCsv = "forecast";

// A column without its leading and trailing missing values, and the row of its first value.
std::pair<std::vector<double>, int64_t> trimmed_column(const std::vector<double>& column) {
  const auto rows = std::ssize(column);
  int64_t first = 0, last = rows;
  while (first < rows && !std::isfinite(column[first])) ++first;
  while (last > first && !std::isfinite(column[last - 1])) --last;
  return {std::vector<double>(column.begin() + first, column.begin() + last), first};
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

// One file: its series, their forecasts and (eval) scores; no plots.
ForecastCsvResult forecast_file(models::Chronos& model, const ForecastCsvOptions& o) {
  ForecastInput in = read_forecast_input(o);
  ForecastCsvResult r;
  r.notes = std::move(in.notes);
  r.dates = std::move(in.dates);
  r.date_column = in.date_column;
  const int64_t need = kMinObserved + (o.eval ? o.horizon : 0);
  for (size_t c = 0; c < in.names.size(); ++c) {
    const std::string& name = in.names[c];
    auto [x, first_row] = trimmed_column(in.columns[c]);
    check(!x.empty(), kForecastCsv, "'{}' column '{}': no observed value (every cell is missing)", o.csv, name);
    if (o.eval) {
      check(std::ssize(x) >= need && observed(std::vector<double>(x.begin(), x.end() - o.horizon)) >= kMinObserved,
            kForecastCsv,
            "'{}' column '{}': {} points; --eval holds out the last {} and needs {} observed values before them "
            "(at least {} points)",
            o.csv, name, x.size(), o.horizon, kMinObserved, need);
      r.truths.emplace_back(x.end() - o.horizon, x.end());
      x.resize(x.size() - static_cast<size_t>(o.horizon));
    }
    const int64_t seen = observed(x);
    check(seen >= kMinObserved, kForecastCsv, "'{}' column '{}': {} observed value(s); forecasting needs at least {}", o.csv,
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
    r.season_lengths.push_back(in.season_length);
    r.histories.push_back(std::move(x));
    r.first_rows.push_back(first_row);
  }
  r.forecasts = models::forecast(model, r.histories,
                                 {.horizon = o.horizon,
                                  .samples = o.samples,
                                  .seed = o.seed,
                                  .context_length = o.context,
                                  .top_k = o.top_k,
                                  .pmf_quantiles = o.pmf_quantiles,
                                  .cuda_graph = o.cuda_graph});
  if (o.eval)
    for (size_t i = 0; i < r.names.size(); ++i)
      r.scores.push_back(nn::score_series(r.histories[i], r.truths[i], r.forecasts[i].median, r.forecasts[i].quantiles,
                                          r.season_lengths[i]));
  return r;
}

// Every *.csv of a directory, in name order, as one result: series <stem>/<column> (or <stem>
// for a file of one series), notes prefixed with the file, no shared date axis.
ForecastCsvResult forecast_directory(models::Chronos& model, const ForecastCsvOptions& o) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(o.csv))
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  check(!files.empty(), kForecastCsv, "'{}' is a directory without .csv files", o.csv);
  check(o.plot.empty(), kForecastCsv, "--plot draws the series of one file; '{}' is a directory (forecast its files one by one)",
        o.csv);
  ForecastCsvResult all;
  for (const std::filesystem::path& file : files) {
    ForecastCsvOptions one = o;
    one.csv = file.string();
    ForecastCsvResult r = forecast_file(model, one);
    const std::string stem = file.stem().string();
    for (const std::string& note : r.notes) all.notes.push_back(fmt::format("{}: {}", file.filename().string(), note));
    for (size_t i = 0; i < r.names.size(); ++i) {
      all.names.push_back(r.names.size() == 1 ? stem : stem + "/" + r.names[i]);
      all.season_lengths.push_back(r.season_lengths[i]);
      all.histories.push_back(std::move(r.histories[i]));
      all.first_rows.push_back(r.first_rows[i]);
      all.forecasts.push_back(std::move(r.forecasts[i]));
      if (o.eval) all.truths.push_back(std::move(r.truths[i])), all.scores.push_back(r.scores[i]);
    }
  }
  return all;
}

}  // namespace

ForecastCsvResult forecast_csv(models::Chronos& model, const ForecastCsvOptions& o) {
  check(o.horizon >= 1, kForecastCsv, "--horizon must be at least 1 step, got {}", o.horizon);
  check(o.samples >= 1, kForecastCsv, "--samples must be at least 1, got {}", o.samples);
  check(o.context >= 0, kForecastCsv, "--context must be >= 0 (0: the model's training context), got {}", o.context);
  check(o.season_length >= 0, kForecastCsv, "--season-length must be >= 1 (or 0: from the dates), got {}", o.season_length);
  check(o.plot_history >= -1, kForecastCsv, "--plot-history must be >= 0 (0: all), got {}", o.plot_history);
  if (!o.plot.empty()) {
    const std::string ext = std::filesystem::path(o.plot).extension().string();
    check(ext == ".png" || ext == ".svg", kForecastCsv, "--plot '{}' must end in .png or .svg", o.plot);
  }
  ForecastCsvResult r = std::filesystem::is_directory(o.csv) ? forecast_directory(model, o) : forecast_file(model, o);
  if (o.eval) r.relative = nn::relative_scores(r.scores);
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
