#include "harmonic/tools/studies/decision_transformer/figures.h"

#include <fmt/format.h>

namespace hm::studies {

report::LinePlot dt_frequency_plot(const std::vector<DtGroup>& groups, const std::string& metric,
                                   const std::string& figure) {
  const bool ret = metric == "return";
  report::LinePlot plot;
  plot.title = figure + (ret ? ": best-epoch normalised return vs frequencies" : ": pmf smoothness vs frequencies");
  plot.x_label = "Fourier frequencies N";
  plot.y_label = ret ? "normalised return" : "smoothness (lower is smoother)";
  report::Series fourier{.label = "Fourier head (mean ± std over seeds)"}, linear{.label = "linear head"};
  double x_min = 1e9, x_max = -1e9;
  for (const DtGroup& g : groups) {
    const report::MetricStats& s = ret ? g.best_normalized : g.smoothness;
    if (!g.head.fourier()) continue;
    fourier.x.push_back(static_cast<double>(g.head.frequencies));
    fourier.y.push_back(s.mean);
    fourier.y_low.push_back(s.mean - s.std);
    fourier.y_high.push_back(s.mean + s.std);
    x_min = std::min(x_min, static_cast<double>(g.head.frequencies));
    x_max = std::max(x_max, static_cast<double>(g.head.frequencies));
  }
  fourier.markers = true;
  for (const DtGroup& g : groups)
    if (!g.head.fourier() && x_min <= x_max) {
      const report::MetricStats& s = ret ? g.best_normalized : g.smoothness;
      linear.x = {x_min, x_max};
      linear.y = {s.mean, s.mean};
      linear.dashed = true;
    }
  if (!fourier.x.empty()) plot.series.push_back(std::move(fourier));
  if (!linear.x.empty()) plot.series.push_back(std::move(linear));
  return plot;
}

report::LinePlot dt_pmf_plot(const std::vector<DtGroup>& groups, int64_t main_frequencies, size_t window) {
  report::LinePlot plot;
  plot.title = fmt::format("Figure 13: next-action pmfs, held-out window {}", window + 1);
  plot.x_label = "action (NOOP, 8 moves, 8 moves + FIRE, FIRE)";
  plot.y_label = "probability";
  int64_t action = -1;
  for (const DtGroup& g : groups) {
    if (g.head.fourier() && g.head.frequencies != main_frequencies) continue;
    if (window >= g.example_pmfs.size()) continue;
    report::Series s{.label = g.head.name()};
    for (size_t a = 0; a < g.example_pmfs[window].size(); ++a) {
      s.x.push_back(static_cast<double>(a));
      s.y.push_back(g.example_pmfs[window][a]);
    }
    s.markers = true;
    if (window < g.example_actions.size()) action = g.example_actions[window];
    plot.series.push_back(std::move(s));
  }
  if (action >= 0) {
    double top = 0;
    for (const report::Series& s : plot.series)
      for (double y : s.y) top = std::max(top, y);
    plot.series.push_back({.label = "the data set's action", .x = {double(action), double(action)}, .y = {0.0, top},
                           .dashed = true});
  }
  return plot;
}

std::vector<std::string> write_dt_figures(const std::string& dir, const std::vector<DtGroup>& groups,
                                          int64_t main_frequencies) {
  std::vector<std::string> written;
  auto add = [&](const report::LinePlot& plot, const std::string& name) {
    if (plot.series.empty()) return;
    for (std::string& f : report::save_svg_and_png(plot, dir, name)) written.push_back(std::move(f));
  };
  add(dt_frequency_plot(groups, "return"), "fig4_return_vs_frequencies");
  add(dt_frequency_plot(groups, "smoothness"), "fig4_smoothness_vs_frequencies");
  for (size_t w = 0; w < 4; ++w) add(dt_pmf_plot(groups, main_frequencies, w), fmt::format("fig13_pmfs_window{}", w + 1));
  return written;
}

}  // namespace hm::studies
