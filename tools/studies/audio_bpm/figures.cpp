#include "harmonic/tools/studies/audio_bpm/figures.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/data/metronome.h"

namespace hm::studies {

report::LinePlot bpm_pmf_plot(const std::vector<BpmGroup>& groups, size_t example) {
  report::LinePlot plot;
  plot.x_label = "tempo bin (lowest BPM of the bin)";
  plot.y_label = "predicted probability";
  int64_t label = -1, bpm = -1;
  for (const BpmGroup& g : groups) {
    if (example >= g.example_pmfs.size()) continue;
    report::Series s{.label = fmt::format("{} head", g.head.name())};
    for (size_t k = 0; k < g.example_pmfs[example].size(); ++k) {
      s.x.push_back(static_cast<double>(data::kMetronomeMinBpm + data::kMetronomeBinWidth * static_cast<int64_t>(k)));
      s.y.push_back(g.example_pmfs[example][k]);
    }
    s.markers = true;
    if (example < g.example_labels.size()) label = g.example_labels[example];
    if (example < g.example_bpm.size()) bpm = g.example_bpm[example];
    plot.series.push_back(std::move(s));
  }
  plot.title = fmt::format("Figure 7: predicted pmfs on test clip {} ({} BPM)", example + 1, bpm);
  if (label >= 0) {
    double top = 0;
    for (const report::Series& s : plot.series)
      for (double y : s.y) top = std::max(top, y);
    const double x = static_cast<double>(data::kMetronomeMinBpm + data::kMetronomeBinWidth * label);
    plot.series.push_back({.label = "ground truth bin", .x = {x, x}, .y = {0.0, top}, .dashed = true});
  }
  return plot;
}

report::LinePlot bpm_f1_plot(const std::vector<BpmGroup>& groups) {
  report::LinePlot plot;
  plot.title = "Macro F1 per head (0 frequencies: the linear head)";
  plot.x_label = "Fourier frequencies";
  plot.y_label = "test macro F1";
  report::Series s{.label = "mean ± std over seeds", .markers = true, .line = false};
  for (const BpmGroup& g : groups) {
    s.x.push_back(static_cast<double>(g.head.frequencies));
    s.y.push_back(g.macro_f1.mean);
    s.y_low.push_back(g.macro_f1.mean - g.macro_f1.std);
    s.y_high.push_back(g.macro_f1.mean + g.macro_f1.std);
  }
  if (!s.x.empty()) plot.series.push_back(std::move(s));
  return plot;
}

std::vector<std::string> write_bpm_figures(const std::string& dir, const std::vector<BpmGroup>& groups) {
  std::vector<std::string> written;
  auto add = [&](const report::LinePlot& plot, const std::string& name) {
    if (plot.series.empty()) return;
    for (std::string& f : report::save_svg_and_png(plot, dir, name)) written.push_back(std::move(f));
  };
  size_t examples = 0;
  for (const BpmGroup& g : groups) examples = std::max(examples, g.example_pmfs.size());
  for (size_t e = 0; e < examples; ++e) add(bpm_pmf_plot(groups, e), fmt::format("fig7_pmfs_clip{}", e + 1));
  add(bpm_f1_plot(groups), "macro_f1_per_head");
  return written;
}

}  // namespace hm::studies
