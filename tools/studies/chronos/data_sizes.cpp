// The Chronos study's Figure 18 (see data_sizes.h).
#include "harmonic/tools/studies/chronos/data_sizes.h"

#include <fmt/format.h>

#include <algorithm>

#include "harmonic/tools/report/markdown.h"

namespace hm::studies {
namespace {

int64_t training_series(const ChronosGroup& g) {
  return g.task_config.value("series", int64_t{0}) + g.task_config.value("mixup_series", int64_t{0});
}

std::string point_name(const ChronosDataPoint& p) {
  return p.fraction == 1.0 ? std::string("all (the rows' runs)") : fmt::format("data={:g}", p.fraction);
}

}  // namespace

std::vector<ChronosDataPoint> chronos_data_points(const std::vector<ChronosGroup>& groups) {
  const std::vector<ChronosGroup> full = chronos_full_data_groups(groups);
  const std::string size = chronos_main_size_of(full);
  const int64_t main_n = chronos_main_frequencies(full, size);
  std::vector<ChronosDataPoint> points;
  auto point_of = [&](double fraction) -> ChronosDataPoint& {
    for (ChronosDataPoint& p : points)
      if (p.fraction == fraction) return p;
    return points.emplace_back(ChronosDataPoint{.fraction = fraction});
  };
  bool any = false;
  for (const ChronosGroup& g : groups) any = any || g.data_fraction != 1.0;
  if (!any) return points;
  for (const ChronosGroup& g : groups) {
    if (g.data_fraction == 1.0 && g.size.name != size) continue;
    if (g.head.fourier() && (g.head.ablation() || (main_n > 0 && g.head.frequencies != main_n))) continue;
    ChronosDataPoint& p = point_of(g.data_fraction);
    (g.head.fourier() ? p.fourier : p.linear) = &g;
    p.series = training_series(g);
  }
  std::sort(points.begin(), points.end(),
            [](const ChronosDataPoint& a, const ChronosDataPoint& b) { return a.fraction < b.fraction; });
  return points;
}

std::vector<report::ClaimResult> chronos_data_claims(const std::vector<ChronosGroup>& groups) {
  std::vector<report::ClaimResult> claims;
  for (const ChronosDataPoint& p : chronos_data_points(groups))
    if (p.fraction != 1.0 && p.linear && p.fourier)
      claims.push_back(report::check_claim(fmt::format("{} MASE < linear at data={:g} ({} series; Figure 18)",
                                                       p.fourier->head.name(), p.fraction, p.series),
                                           p.fourier->mase, p.linear->mase, report::less()));
  return claims;
}

std::string chronos_data_markdown(const std::vector<ChronosGroup>& groups) {
  std::string md = "\n## Figure 18: relative MASE against training set size\n\n";
  const std::vector<ChronosDataPoint> points = chronos_data_points(groups);
  if (points.empty())
    return md +
           "Not run yet: no run on a share of the training series is recorded (full mode runs 1% and 10% on seeds "
           "1-4; `harmonic study chronos --resume DIR --only 'data='` runs only them).\n";
  md +=
      "Linear and the main Fourier head at the main size, trained on a share of the training series (a prefix of "
      "the same KernelSynth stream and TSMixup over it, for the same steps), scored on the same held-out series. "
      "The paper's Figure 18 spans 1.1e5 to 1.1e8 training points (four seeds below its full set) and prints no "
      "numbers.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const ChronosDataPoint& p : points) {
    auto cell = [](const ChronosGroup* g, auto field, int decimals) {
      return g ? report::format_stats(g->*field, decimals) : std::string("not run yet");
    };
    const ChronosGroup* any = p.linear ? p.linear : p.fourier;
    rows.push_back({point_name(p), std::to_string(p.series), std::to_string(any->seeds.size()),
                    cell(p.linear, &ChronosGroup::mase, 3), cell(p.fourier, &ChronosGroup::mase, 3),
                    cell(p.linear, &ChronosGroup::wql, 3), cell(p.fourier, &ChronosGroup::wql, 3)});
  }
  const ChronosDataPoint& last = points.back();
  const std::string fourier = last.fourier ? last.fourier->head.name() : "fourier";
  md += report::markdown_table(
      {"training set", "series", "seeds", "linear MASE", fourier + " MASE", "linear WQL", fourier + " WQL"}, rows);
  return md;
}

Json chronos_data_json(const std::vector<ChronosGroup>& groups) {
  Json out = Json::array();
  for (const ChronosDataPoint& p : chronos_data_points(groups)) {
    Json j = {{"fraction", p.fraction}, {"series", p.series}};
    for (const auto& [key, g] :
         {std::pair<const char*, const ChronosGroup*>{"linear", p.linear}, {"fourier", p.fourier}})
      if (g)
        j[key] = {{"head", g->head.name()},
                  {"seeds", g->seeds},
                  {"relative_mase", report::stats_json(g->mase)},
                  {"relative_wql", report::stats_json(g->wql)},
                  {"smoothness", report::stats_json(g->smoothness)}};
    out.push_back(std::move(j));
  }
  return out;
}

report::LinePlot chronos_data_plot(const std::vector<ChronosGroup>& groups) {
  report::LinePlot plot;
  plot.title = "Figure 18: relative MASE vs training set size";
  plot.x_label = "training series (KernelSynth + TSMixup)";
  plot.y_label = "relative MASE (lower is better)";
  plot.log_x = true;
  const std::vector<ChronosDataPoint> points = chronos_data_points(groups);
  for (bool fourier : {false, true}) {
    report::Series s;
    for (const ChronosDataPoint& p : points)
      if (const ChronosGroup* g = fourier ? p.fourier : p.linear) {
        s.label = g->head.name();
        s.x.push_back(static_cast<double>(p.series));
        s.y.push_back(g->mase.mean);
        s.y_low.push_back(g->mase.mean - g->mase.std);
        s.y_high.push_back(g->mase.mean + g->mase.std);
      }
    s.markers = true;
    if (!s.x.empty()) plot.series.push_back(std::move(s));
  }
  return plot;
}

std::vector<std::string> write_chronos_data_figures(const std::string& dir, const std::vector<ChronosGroup>& groups) {
  return report::save_svg_and_png(chronos_data_plot(groups), dir, "fig18_mase_vs_data_size");
}

}  // namespace hm::studies
