// The Decision Transformer study's model and data size ablations (see ablations.h).
#include "harmonic/tools/studies/decision_transformer/ablations.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"

namespace hm::studies {
namespace {

const char* prefix(DtAblation a) { return a == DtAblation::Model ? "model=" : "data="; }
const char* figure(DtAblation a) { return a == DtAblation::Model ? "Figure 14" : "Figure 15"; }

double transitions(const DtGroup& g) {
  return g.task_config.contains("dataset_steps") ? g.task_config.at("dataset_steps").get<double>() : 0.0;
}

double size_of(const DtAblationPoint& p, DtAblation a) {
  const DtGroup* g = p.linear ? p.linear : p.fourier;
  return a == DtAblation::Model ? static_cast<double>(g->params) : transitions(*g);
}

}  // namespace

std::vector<DtAblationPoint> dt_ablation_points(const std::vector<DtGroup>& groups, DtAblation ablation,
                                                int64_t main_frequencies) {
  std::vector<DtAblationPoint> points;
  auto point_of = [&](const std::string& name) -> DtAblationPoint& {
    for (DtAblationPoint& p : points)
      if (p.name == name) return p;
    return points.emplace_back(DtAblationPoint{.name = name});
  };
  for (const DtGroup& g : groups) {
    if (!g.ablation.starts_with(prefix(ablation))) continue;
    if (g.head.fourier() && g.head.frequencies != main_frequencies) continue;
    (g.head.fourier() ? point_of(g.ablation).fourier : point_of(g.ablation).linear) = &g;
  }
  if (points.empty()) return points;
  for (const DtGroup& g : groups)  // the main grid's pair: the mode's scale
    if (g.ablation.empty() && (!g.head.fourier() || g.head.frequencies == main_frequencies))
      (g.head.fourier() ? point_of("main grid").fourier : point_of("main grid").linear) = &g;
  for (DtAblationPoint& p : points) p.size = size_of(p, ablation);
  std::stable_sort(points.begin(), points.end(),
                   [](const DtAblationPoint& a, const DtAblationPoint& b) { return a.size < b.size; });
  return points;
}

std::vector<report::ClaimResult> dt_ablation_claims(const std::vector<DtGroup>& groups, int64_t main_frequencies) {
  std::vector<report::ClaimResult> claims;
  for (DtAblation a : {DtAblation::Model, DtAblation::Data})
    for (const DtAblationPoint& p : dt_ablation_points(groups, a, main_frequencies))
      if (p.linear && p.fourier && p.name != "main grid")
        claims.push_back(report::check_claim(fmt::format("{} best-epoch normalised return > linear at {} ({})",
                                                         p.fourier->head.name(), p.name, figure(a)),
                                             p.fourier->best_normalized, p.linear->best_normalized, report::greater()));
  return claims;
}

std::string dt_ablations_markdown(const std::vector<DtGroup>& groups, int64_t main_frequencies) {
  std::string md = "## Figures 14 and 15: model and data set size ablations\n\n";
  md += fmt::format(
      "The linear and Fourier-{} heads at other model sizes (depth and width; the heads and everything else as in "
      "the main grid) and on smaller data sets (the first transitions of the same behaviour mixture), on the sweep "
      "seeds, beside the main grid's pair at the mode's scale. The paper plots Figures 14 and 15 without printing "
      "their numbers; its claim is the Fourier head's higher return at every size.\n\n",
      main_frequencies);
  for (DtAblation a : {DtAblation::Model, DtAblation::Data}) {
    const bool model = a == DtAblation::Model;
    md += fmt::format("{} ({}):\n\n", figure(a), model ? "model size" : "data set size");
    const std::vector<DtAblationPoint> points = dt_ablation_points(groups, a, main_frequencies);
    if (points.empty()) {
      md += fmt::format(
          "Not run yet: no run of this ablation is recorded (full mode runs it; `harmonic study decision-transformer "
          "--resume DIR --only '{}'` runs only it).\n\n",
          prefix(a));
      continue;
    }
    std::vector<std::vector<std::string>> rows;
    for (const DtAblationPoint& p : points) {
      auto stats = [](const DtGroup* g, auto field, int decimals) {
        return g ? report::format_stats(g->*field, decimals) : std::string("not run yet");
      };
      const DtGroup* any = p.linear ? p.linear : p.fourier;
      rows.push_back({p.name, model ? std::to_string(any->params) : fmt::format("{:.0f}", p.size),
                      std::to_string(any->seeds.size()), stats(p.linear, &DtGroup::best_normalized, 2),
                      stats(p.fourier, &DtGroup::best_normalized, 2), stats(p.linear, &DtGroup::smoothness, 4),
                      stats(p.fourier, &DtGroup::smoothness, 4)});
    }
    md +=
        report::markdown_table({"point", model ? "params (linear)" : "transitions", "seeds", "linear best-epoch return",
                                fmt::format("fourier-{} best-epoch return", main_frequencies), "linear smoothness",
                                fmt::format("fourier-{} smoothness", main_frequencies)},
                               rows);
    md += "\n";
  }
  return md;
}

Json dt_ablations_json(const std::vector<DtGroup>& groups, int64_t main_frequencies) {
  Json out = Json::object();
  for (DtAblation a : {DtAblation::Model, DtAblation::Data}) {
    Json points = Json::array();
    for (const DtAblationPoint& p : dt_ablation_points(groups, a, main_frequencies)) {
      Json j = {{"point", p.name}, {"size", p.size}};
      for (const auto& [key, g] : {std::pair<const char*, const DtGroup*>{"linear", p.linear}, {"fourier", p.fourier}})
        if (g)
          j[key] = {{"head", g->head.name()},
                    {"seeds", g->seeds},
                    {"params", g->params},
                    {"best_normalized_return", report::stats_json(g->best_normalized)},
                    {"smoothness", report::stats_json(g->smoothness)}};
      points.push_back(std::move(j));
    }
    out[a == DtAblation::Model ? "model_size" : "data_size"] = std::move(points);
  }
  return out;
}

report::LinePlot dt_ablation_plot(const std::vector<DtGroup>& groups, DtAblation ablation, int64_t main_frequencies) {
  const bool model = ablation == DtAblation::Model;
  report::LinePlot plot;
  plot.title =
      fmt::format("{}: best-epoch normalised return vs {}", figure(ablation), model ? "model size" : "data set size");
  plot.x_label = model ? "parameters (linear head's model)" : "transitions in the data set";
  plot.y_label = "normalised return";
  plot.log_x = true;
  const std::vector<DtAblationPoint> points = dt_ablation_points(groups, ablation, main_frequencies);
  for (bool fourier : {false, true}) {
    report::Series s{.label = fourier ? fmt::format("Fourier-{} head", main_frequencies) : "linear head"};
    for (const DtAblationPoint& p : points)
      if (const DtGroup* g = fourier ? p.fourier : p.linear) {
        s.x.push_back(p.size);
        s.y.push_back(g->best_normalized.mean);
        s.y_low.push_back(g->best_normalized.mean - g->best_normalized.std);
        s.y_high.push_back(g->best_normalized.mean + g->best_normalized.std);
      }
    s.markers = true;
    if (!s.x.empty()) plot.series.push_back(std::move(s));
  }
  return plot;
}

std::vector<std::string> write_dt_ablation_figures(const std::string& dir, const std::vector<DtGroup>& groups,
                                                   int64_t main_frequencies) {
  std::vector<std::string> written;
  for (const auto& [a, name] : {std::pair{DtAblation::Model, "fig14_return_vs_model_size"},
                                std::pair{DtAblation::Data, "fig15_return_vs_data_size"}})
    for (std::string& f : report::save_svg_and_png(dt_ablation_plot(groups, a, main_frequencies), dir, name))
      written.push_back(std::move(f));
  return written;
}

}  // namespace hm::studies
