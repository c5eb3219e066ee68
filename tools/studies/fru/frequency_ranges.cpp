// The FRU study's Appendix D frequency ranges (see frequency_ranges.h).
#include "harmonic/tools/studies/fru/frequency_ranges.h"

#include <fmt/format.h>

#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"

namespace hm::studies {
namespace {

std::string point_name(int64_t freqs, const std::string& range) {
  return fmt::format("FRU_{{{},10}} {}", freqs, range);
}

const FruGroup* group_of(const std::vector<FruGroup>& groups, const FruFreqPoint& p) {
  return find_fru_freq_group(groups, p.dataset, p.freqs, p.range);
}

}  // namespace

const FruGroup* find_fru_freq_group(const std::vector<FruGroup>& groups, const std::string& dataset, int64_t freqs,
                                    const std::string& range) {
  const std::string model = fmt::format("fru{}_10", freqs);
  for (const FruGroup& g : groups)
    if (g.part == FruPart::Freq && g.dataset == dataset && g.model == model && g.freq_range == range) return &g;
  return nullptr;
}

std::vector<report::ClaimResult> fru_freq_claims(const std::vector<FruGroup>& groups) {
  std::vector<report::ClaimResult> out;
  auto more_accurate = [&](const std::string& text, const FruGroup* a, const FruGroup* b) {
    if (a && b) out.push_back(report::check_claim(text, a->metric, b->metric, report::greater()));
  };
  for (int64_t k : {5, 10, 20}) {
    const FruGroup* both = find_fru_freq_group(groups, "row", k, "0.25~T");
    for (const char* half : {"0.25~T/10", "T/10~T"})
      more_accurate(fmt::format("{} more accurate than {} on row (Figure 11)", point_name(k, "0.25~T"), half), both,
                    find_fru_freq_group(groups, "row", k, half));
  }
  more_accurate("FRU_{20,10} more accurate than FRU_{5,10} over 0.25~T on row (Figure 10)",
                find_fru_freq_group(groups, "row", 20, "0.25~T"), find_fru_freq_group(groups, "row", 5, "0.25~T"));
  more_accurate("FRU_{60,10} more accurate than FRU_{10,10} over 0.25~T on pixel (Figure 12)",
                find_fru_freq_group(groups, "pixel", 60, "0.25~T"), find_fru_freq_group(groups, "pixel", 10, "0.25~T"));
  return out;
}

std::string fru_freq_markdown(const std::vector<FruGroup>& groups) {
  std::string md = "## Frequency ranges (Appendix D, Figures 10-12)\n\n";
  bool any = false;
  for (const FruFreqPoint& p : fru_freq_points()) any = any || group_of(groups, p);
  if (!any)
    return md +
           "Not run yet: no run of the freq part is recorded (full mode runs it; `harmonic study fru --resume DIR "
           "--only '~'` runs only it, `--quick --set 'parts=[\"freq\"]'` at quick scale).\n";
  md +=
      "FRU_{N,10} with 200 units, its frequencies [0] + N - 1 log-spaced over the range (T = the sequence length: "
      "rows of the pooled image, or its pixels; 0.25~T/32 is the paper's 0.25~25 at T = 784), at the image part's "
      "scale and FRU_{60,10}'s released lr / decay for every point. The paper plots these curves (50 epochs on "
      "MNIST) without numbers. Test accuracy (%), mean ± std over seeds:\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const FruFreqPoint& p : fru_freq_points()) {
    const FruGroup* g = group_of(groups, p);
    const std::string steps =
        g ? fmt::format("{:g}~{:g}", g->task_config.value("f_min", 0.25), g->task_config.value("f_max", 0.0)) : "-";
    rows.push_back({p.dataset, point_name(p.freqs, p.range), steps, g ? std::to_string(g->seeds.size()) : "0",
                    g ? report::format_stats(report::scaled(g->metric, 100), 2) : std::string("not run yet")});
  }
  md += report::markdown_table({"data set", "FRU and range", "frequencies", "seeds", "test accuracy"}, rows);
  for (int64_t k : {10, 60}) {
    const FruGroup* whole = find_fru_freq_group(groups, "pixel", k, "0.25~T");
    const FruGroup* low = find_fru_freq_group(groups, "pixel", k, "0.25~T/32");
    if (whole && low)
      md += fmt::format(
          "\nFigure 12's reading at N = {}: 0.25~T/32 minus 0.25~T = {:+.2f} points (the paper: "
          "\"similar accuracy\").\n",
          k, 100 * (low->metric.mean - whole->metric.mean));
  }
  return md;
}

report::LinePlot fru_freq_plot(const std::vector<FruGroup>& groups, const std::string& dataset) {
  report::LinePlot plot;
  plot.title =
      fmt::format("{}: FRU test accuracy by frequency range (Figure {})", dataset, dataset == "row" ? "10" : "12");
  plot.x_label = "epoch";
  plot.y_label = "test accuracy (%)";
  for (const FruFreqPoint& p : fru_freq_points()) {
    if (p.dataset != dataset) continue;
    const FruGroup* g = group_of(groups, p);
    if (!g) continue;
    report::Series s{.label = point_name(p.freqs, p.range), .x = g->curve.x};
    for (double v : g->curve.mean) s.y.push_back(100 * v);
    s.markers = s.x.size() <= 12;
    plot.series.push_back(std::move(s));
  }
  return plot;
}

std::vector<std::string> write_fru_freq_figures(const std::string& dir, const std::vector<FruGroup>& groups) {
  std::vector<std::string> written;
  for (const auto& [dataset, name] : {std::pair<const char*, const char*>{"row", "fig10_row_frequency_ranges"},
                                      {"pixel", "fig12_pixel_frequency_ranges"}})
    for (std::string& f : report::save_svg_and_png(fru_freq_plot(groups, dataset), dir, name))
      written.push_back(std::move(f));
  return written;
}

}  // namespace hm::studies
