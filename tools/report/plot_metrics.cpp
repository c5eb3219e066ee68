// metrics_plot: a line plot of keys of a metrics.jsonl (see plot.h).
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "tools/report/plot.h"

namespace hm::report {

LinePlot metrics_plot(const std::string& path, const std::string& x, const std::vector<std::string>& ys) {
  check(!ys.empty(), "metrics_plot", "no y keys given");
  std::ifstream in(path);
  check(in.good(), "metrics_plot", "cannot open '{}'", path);
  LinePlot plot;
  plot.x_label = x;
  for (const std::string& y : ys) plot.series.push_back({y, {}, {}});
  std::set<std::string> seen;
  std::string line;
  for (int64_t lineno = 1; std::getline(in, line); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw_error("metrics_plot", fmt::format("'{}' line {}: not JSON: {}", path, lineno, e.what()));
    }
    check(j.is_object(), "metrics_plot", "'{}' line {}: expected a JSON object", path, lineno);
    for (const auto& [k, v] : j.items()) seen.insert(k);
    if (!j.contains(x) || !j[x].is_number()) continue;
    for (size_t i = 0; i < ys.size(); ++i) {
      if (!j.contains(ys[i]) || !j[ys[i]].is_number()) continue;
      plot.series[i].x.push_back(j[x].get<double>());
      plot.series[i].y.push_back(j[ys[i]].get<double>());
    }
  }
  for (const Series& s : plot.series)
    check(!s.x.empty(), "metrics_plot", "'{}' has no numeric '{}' values against '{}' (keys present: {})", path,
          s.label, x, fmt::join(seen, ", "));
  if (ys.size() == 1) plot.y_label = ys[0];
  return plot;
}

}  // namespace hm::report
