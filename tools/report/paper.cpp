// Measured numbers beside a paper's (see paper.h).
#include "harmonic/tools/report/paper.h"

#include <fmt/format.h>

#include <cmath>

namespace hm::report {

std::string outside_rule_note(int decimals) {
  return fmt::format(
      "{} the measured mean (rounded to {} decimals) lies outside the paper's mean ± std, "
      "[mean - std, mean + std].",
      kOutsideMark, decimals);
}

bool outside_paper(const MetricStats& measured, const PaperValue& paper, int decimals) {
  if (measured.count == 0) return false;
  const double scale = std::pow(10.0, decimals);
  const double shown = std::round(measured.mean * scale) / scale;
  // The paper's bounds at the same precision (its numbers are printed with `decimals`).
  const double lo = std::round((paper.mean - paper.std) * scale) / scale;
  const double hi = std::round((paper.mean + paper.std) * scale) / scale;
  return !(shown >= lo && shown <= hi);  // NaN: outside
}

std::string format_stats(const MetricStats& s, int decimals) {
  if (s.count == 0) return "-";
  if (std::isnan(s.mean)) return "nan";
  if (s.count == 1) return fmt::format("{:.{}f}", s.mean, decimals);
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, decimals, s.std, decimals);
}

std::string format_paper(const std::optional<PaperValue>& p, int decimals) {
  if (!p) return "-";
  return fmt::format("{:.{}f} ± {:.{}f}", p->mean, decimals, p->std, decimals);
}

std::string measured_cell(const MetricStats& s, const std::optional<PaperValue>& paper, int decimals) {
  std::string cell = format_stats(s, decimals);
  if (paper && outside_paper(s, *paper, decimals)) cell += std::string(" ") + kOutsideMark;
  return cell;
}

Json paper_json(const PaperValue& p) { return {{"mean", p.mean}, {"std", p.std}, {"source", p.source}}; }

Json cell_json(const MetricStats& s, const std::optional<PaperValue>& paper, int decimals) {
  Json j = stats_json(s);
  if (paper) {
    j["paper"] = paper_json(*paper);
    j["outside_paper"] = outside_paper(s, *paper, decimals);
  }
  return j;
}

}  // namespace hm::report
