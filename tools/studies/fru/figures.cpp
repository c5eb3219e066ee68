#include "harmonic/tools/studies/fru/figures.h"

#include <fmt/format.h>

#include <algorithm>

namespace hm::studies {
namespace {

std::string figure_name(const std::string& dataset) {
  if (dataset == "mix-sin") return "fig3_mix-sin";
  if (dataset.starts_with("mix-poly")) return "fig4_" + dataset;
  if (dataset == "pixel") return "fig6_pixel";
  if (dataset == "permuted") return "fig7_permuted";
  if (dataset == "kjv-genre") return "fig8_kjv-genre";
  return "fig_" + dataset;
}

}  // namespace

report::LinePlot fru_curve_plot(const std::vector<FruGroup>& groups, const std::string& dataset) {
  report::LinePlot plot;
  plot.x_label = "epoch";
  for (const FruGroup& g : groups) {
    if (g.dataset != dataset) continue;
    const bool mse = g.part == FruPart::Synthetic;
    const double scale = mse ? 1.0 : 100.0;  // accuracy in percent
    plot.log_y = mse;
    plot.y_label = mse ? "test MSE" : "test accuracy (%)";
    plot.title = fmt::format("{}: {} ({} seed{})", dataset, plot.y_label, g.seeds.size(), g.seeds.size() == 1 ? "" : "s");
    report::Series s;
    s.label = find_fru_model(g.part, g.model).display;
    s.x = g.curve.x;
    for (size_t i = 0; i < g.curve.x.size(); ++i) {
      s.y.push_back(scale * g.curve.mean[i]);
      if (g.seeds.size() > 1) {
        s.y_low.push_back(scale * (g.curve.mean[i] - g.curve.std[i]));
        s.y_high.push_back(scale * (g.curve.mean[i] + g.curve.std[i]));
      }
    }
    s.markers = s.x.size() <= 12;
    plot.series.push_back(std::move(s));
  }
  return plot;
}

report::LinePlot fru_grad_plot(const FruGroup& group, const std::string& norm) {
  report::LinePlot plot;
  const std::string& model = find_fru_model(group.part, group.model).display;
  plot.title = fmt::format("{} on {}: {} norm of d loss_t / d h0", model, group.dataset, norm);
  plot.x_label = "time step t";
  plot.y_label = norm + " norm (mean over windows of 20 steps)";
  plot.log_y = true;
  for (const FruGradCurve& c : group.grads) {
    report::Series s;
    s.label = fmt::format("epoch {}", c.epoch);
    s.x = c.step;
    s.y = norm == "l1" ? c.l1 : norm == "l2" ? c.l2 : c.linf;
    plot.series.push_back(std::move(s));
  }
  return plot;
}

std::vector<std::string> write_fru_figures(const std::string& dir, const std::vector<FruGroup>& groups) {
  std::vector<std::string> written;
  auto save = [&](const report::LinePlot& plot, const std::string& name) {
    for (std::string& f : report::save_svg_and_png(plot, dir, name)) written.push_back(std::move(f));
  };
  std::vector<std::string> datasets;
  for (const FruGroup& g : groups)
    if (std::find(datasets.begin(), datasets.end(), g.dataset) == datasets.end()) datasets.push_back(g.dataset);
  for (const std::string& d : datasets) save(fru_curve_plot(groups, d), figure_name(d));
  for (const FruGroup& g : groups)
    if (!g.grads.empty())
      for (const char* norm : {"l1", "l2", "linf"}) save(fru_grad_plot(g, norm), fmt::format("fig5_{}_{}", g.model, norm));
  return written;
}

}  // namespace hm::studies
