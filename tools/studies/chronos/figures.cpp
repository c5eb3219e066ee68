#include "harmonic/tools/studies/chronos/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace hm::studies {
namespace {

std::vector<double> numbers(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return {};
  return j.at(key).get<std::vector<double>>();
}

// The groups drawn in the example figures: linear and the main Fourier head at the main size.
std::vector<const ChronosGroup*> example_groups(const std::vector<ChronosGroup>& groups) {
  const std::string size = chronos_main_size_of(groups);
  const int64_t main_n = chronos_main_frequencies(groups, size);
  std::vector<const ChronosGroup*> out;
  for (const char* head : {"linear", ""}) {
    const std::string name = *head ? head : fmt::format("fourier-{}", main_n);
    if (const ChronosGroup* g = find_chronos_group(groups, name, size)) out.push_back(g);
  }
  return out;
}

}  // namespace

report::LinePlot chronos_pmf_plot(const std::vector<ChronosGroup>& groups, size_t example) {
  report::LinePlot plot;
  plot.title = fmt::format("Figure 17: next-value pmfs, held-out series {}", example + 1);
  plot.x_label = "next value (scaled by the context's mean |x|)";
  plot.y_label = "pmf / bin width";
  double truth = NAN, top = 0;
  for (const ChronosGroup* g : example_groups(groups)) {
    if (example >= g->example_pmfs.size()) continue;
    const Json& p = g->example_pmfs[example];
    report::Series s{.label = g->head.name(), .x = numbers(p, "value"), .y = numbers(p, "density")};
    for (double y : s.y) top = std::max(top, y);
    truth = p.value("truth", NAN);
    plot.series.push_back(std::move(s));
  }
  if (!plot.series.empty() && std::isfinite(truth))
    plot.series.push_back({.label = "true next value", .x = {truth, truth}, .y = {0.0, top}, .dashed = true});
  return plot;
}

report::LinePlot chronos_fan_plot(const ChronosGroup& g) {
  report::LinePlot plot;
  const Json& f = g.example_forecast;
  if (!f.is_object()) return plot;
  plot.title = fmt::format("{} forecast, held-out series 1 (season {})", g.head.name(), f.value("season", 1));
  plot.x_label = "step (0 = first forecast step)";
  plot.y_label = "value";
  const std::vector<double> history = numbers(f, "history"), truth = numbers(f, "truth"), median = numbers(f, "median"),
                            q10 = numbers(f, "q10"), q90 = numbers(f, "q90");
  report::Series h{.label = "history", .color = 7}, t{.label = "truth", .dashed = true, .color = 7};
  for (size_t i = 0; i < history.size(); ++i) {
    h.x.push_back(static_cast<double>(i) - static_cast<double>(history.size()));
    h.y.push_back(history[i]);
  }
  report::Series m{.label = "median, 10-90% band (20 paths)", .color = g.head.fourier() ? 1 : 0};
  for (size_t i = 0; i < truth.size(); ++i) {
    t.x.push_back(static_cast<double>(i));
    t.y.push_back(truth[i]);
  }
  m.x = t.x, m.y = median, m.y_low = q10, m.y_high = q90;
  if (m.y.size() != m.x.size() || m.y_low.size() != m.x.size() || m.y_high.size() != m.x.size()) return {};
  plot.series = {h, t, m};
  return plot;
}

report::LinePlot chronos_frequency_plot(const std::vector<ChronosGroup>& groups, const std::string& metric) {
  const bool smooth = metric == "smoothness";
  const std::string size = chronos_main_size_of(groups);
  report::LinePlot plot;
  plot.title = smooth ? "Table 8: pmf smoothness vs frequencies" : "Table 8: relative MASE vs frequencies";
  plot.x_label = "Fourier frequencies N";
  plot.y_label = smooth ? "smoothness (lower is smoother)" : "relative MASE (< 1 beats seasonal naive)";
  plot.log_y = smooth;
  report::Series fourier{.label = "Fourier head, mixed bins (mean ± std over seeds)", .markers = true},
      linear{.label = "linear head", .dashed = true};
  for (const ChronosGroup& g : groups) {
    if (g.size.name != size) continue;
    const report::MetricStats& s = smooth ? g.smoothness : g.mase;
    if (g.head.fourier() && !g.head.ablation()) {
      fourier.x.push_back(static_cast<double>(g.head.frequencies));
      fourier.y.push_back(s.mean);
      fourier.y_low.push_back(s.mean - s.std);
      fourier.y_high.push_back(s.mean + s.std);
    } else if (!g.head.fourier()) {
      linear.y = {s.mean, s.mean};
    }
  }
  if (fourier.x.empty()) return plot;
  if (!linear.y.empty()) linear.x = {fourier.x.front(), fourier.x.back()};
  plot.series.push_back(std::move(fourier));
  if (!linear.x.empty()) plot.series.push_back(std::move(linear));
  return plot;
}

report::LinePlot chronos_size_plot(const std::vector<ChronosGroup>& groups) {
  const std::string size = chronos_main_size_of(groups);
  const int64_t main_n = chronos_main_frequencies(groups, size);
  report::LinePlot plot;
  plot.title = "Figure 19: relative MASE vs model size";
  plot.x_label = "parameters (millions, log scale)";
  plot.log_x = true;  // the sizes grow about 4x per step
  plot.y_label = "relative MASE";
  report::Series linear{.label = "linear head", .markers = true},
      fourier{.label = fmt::format("Fourier-{} head", main_n), .markers = true};
  for (const ChronosGroup& g : groups) {
    report::Series* s = !g.head.fourier()                                      ? &linear
                        : (g.head.frequencies == main_n && !g.head.ablation()) ? &fourier
                                                                               : nullptr;
    if (!s) continue;
    s->x.push_back(static_cast<double>(g.params) * 1e-6);
    s->y.push_back(g.mase.mean);
    s->y_low.push_back(g.mase.mean - g.mase.std);
    s->y_high.push_back(g.mase.mean + g.mase.std);
  }
  if (linear.x.size() < 2 && fourier.x.size() < 2) return plot;  // one size: no sweep to draw
  for (report::Series* s : {&linear, &fourier})
    if (!s->x.empty()) plot.series.push_back(*s);
  return plot;
}

std::vector<std::string> write_chronos_figures(const std::string& dir, const std::vector<ChronosGroup>& groups) {
  std::vector<std::string> written;
  auto add = [&](const report::LinePlot& plot, const std::string& name) {
    if (plot.series.empty()) return;
    for (std::string& f : report::save_svg_and_png(plot, dir, name)) written.push_back(std::move(f));
  };
  for (size_t e = 0; e < 2; ++e) add(chronos_pmf_plot(groups, e), fmt::format("fig17_pmfs_series{}", e + 1));
  for (const ChronosGroup* g : example_groups(groups)) add(chronos_fan_plot(*g), "forecast_fan_" + g->head.name());
  add(chronos_frequency_plot(groups, "smoothness"), "table8_smoothness_vs_frequencies");
  add(chronos_frequency_plot(groups, "mase"), "table8_mase_vs_frequencies");
  add(chronos_size_plot(groups), "fig19_mase_vs_params");
  return written;
}

}  // namespace hm::studies
