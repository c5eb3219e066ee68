// Line plots from metrics.jsonl files (one run, or several runs compared).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/report/plot.h"

namespace hm::report {

// -- metrics.jsonl ------------------------------------------------------------------------------

namespace {

// A run directory stands for its metrics.jsonl (`harmonic plot --metrics runs/fashion`).
std::string metrics_file(const std::string& file_or_run) {
  std::error_code ec;
  return std::filesystem::is_directory(file_or_run, ec) ? (std::filesystem::path(file_or_run) / "metrics.jsonl").string()
                                                         : file_or_run;
}

}  // namespace

LinePlot metrics_plot(const std::string& file_or_run, const std::string& x, const std::vector<std::string>& ys) {
  check(!ys.empty(), "metrics_plot", "no y keys given");
  const std::string path = metrics_file(file_or_run);
  check_readable_file(path, "metrics_plot");
  std::ifstream in(path);
  check(in.good(), "metrics_plot", "cannot open '{}'", path);
  LinePlot plot;
  plot.x_label = x;
  for (const std::string& y : ys) plot.series.push_back({y, {}, {}});
  std::set<std::string> seen;
  std::string line;
  // A metrics line is a few hundred bytes; the bound stops /dev/zero or a binary file early.
  for (int64_t lineno = 1; read_line_limited(in, line, size_t{16} << 20, "metrics_plot", path, lineno); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = parse_json(line, "metrics_plot", fmt::format("'{}' line {}", path, lineno));
    } catch (const nlohmann::json::exception& e) {
      throw_error("metrics_plot", fmt::format("'{}' line {}: not JSON: {}", path, lineno, e.what()));
    }
    check(j.is_object(), "metrics_plot", "'{}' line {}: expected a JSON object", path, lineno);
    for (const auto& [k, v] : j.items()) seen.insert(k);
    if (!j.contains(x) || !j[x].is_number()) continue;
    // Named here, where the file and line are known, rather than by the layout later.
    auto value = [&](const std::string& key) {
      const double v = j[key].get<double>();
      check(!std::isfinite(v) || std::fabs(v) <= kMaxPlotMagnitude, "metrics_plot",
            "'{}' line {}: \"{}\" is {}, beyond the +-{} a plot can lay out", path, lineno, key, v, kMaxPlotMagnitude);
      return v;
    };
    for (size_t i = 0; i < ys.size(); ++i) {
      if (!j.contains(ys[i]) || !j[ys[i]].is_number()) continue;
      plot.series[i].x.push_back(value(x));
      plot.series[i].y.push_back(value(ys[i]));
    }
  }
  for (const Series& s : plot.series)
    check(!s.x.empty(), "metrics_plot", "'{}' has no numeric '{}' values against '{}' (keys present: {})", path,
          s.label, x, fmt::join(seen, ", "));
  plot.y_label = fmt::format("{}", fmt::join(ys, ", "));
  const std::filesystem::path run = std::filesystem::path(path).parent_path();
  plot.title = fmt::format("{} against {}{}", plot.y_label, x,
                           run.empty() ? std::string() : fmt::format(" ({})", run.filename().string()));
  return plot;
}

LinePlot metrics_plot(const std::vector<std::string>& paths, const std::string& x, const std::vector<std::string>& ys) {
  check(!paths.empty(), "metrics_plot", "no metrics files given");
  if (paths.size() == 1) return metrics_plot(paths[0], x, ys);
  // Run labels: the directories' names when they tell the runs apart, else the full paths.
  std::vector<std::string> names, dirs;
  for (const std::string& p : paths) {
    std::filesystem::path dir = std::filesystem::path(metrics_file(p)).parent_path();
    dirs.push_back(dir.empty() ? p : dir.string());
    names.push_back(dir.empty() ? p : dir.filename().string());
  }
  const std::set<std::string> distinct(names.begin(), names.end());
  const std::vector<std::string>& labels = distinct.size() == names.size() ? names : dirs;
  LinePlot plot;
  plot.x_label = x;
  for (size_t i = 0; i < paths.size(); ++i) {
    LinePlot one = metrics_plot(paths[i], x, ys);
    for (Series& s : one.series) {
      s.label = ys.size() == 1 ? labels[i] : labels[i] + ": " + s.label;
      plot.series.push_back(std::move(s));
    }
  }
  plot.y_label = fmt::format("{}", fmt::join(ys, ", "));
  plot.title = fmt::format("{} against {}, {} runs", plot.y_label, x, paths.size());
  return plot;
}

}  // namespace hm::report
