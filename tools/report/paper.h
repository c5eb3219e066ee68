// Measured numbers beside a paper's: a paper value (mean ± std and where it is printed), the
// rule that flags a measured mean outside the paper's spread, and the table cells and JSON
// that show both.
#pragma once
#include <optional>
#include <string>

#include "harmonic/tools/report/stats.h"

namespace hm::report {

// A number a paper reports: mean ± std over its seeds, and where ("Table 1").
struct PaperValue {
  double mean = 0, std = 0;
  std::string source;
};

// The mark beside a measured cell outside the paper's spread, and the footnote stating the rule.
inline constexpr const char* kOutsideMark = "†";
std::string outside_rule_note(int decimals = 3);

// The flag rule: the measured mean, rounded to `decimals` (the paper's precision, as the cell
// shows it), lies outside [paper.mean - paper.std, paper.mean + paper.std]. A NaN mean is
// outside; no measured value (count 0) is not flagged.
bool outside_paper(const MetricStats& measured, const PaperValue& paper, int decimals = 3);

// "0.109 ± 0.001"; one seed: "0.109" (no spread to show); no values: "-"; NaN: "nan".
std::string format_stats(const MetricStats& s, int decimals = 3);
// "0.116 ± 0.043"; nullopt: "-".
std::string format_paper(const std::optional<PaperValue>& p, int decimals = 3);
// The measured cell with " †" appended when outside_paper (paper nullopt: never flagged).
std::string measured_cell(const MetricStats& s, const std::optional<PaperValue>& paper, int decimals = 3);

// stats_json(s) plus, with a paper value, "paper": {"mean", "std", "source"} and
// "outside_paper": bool.
Json cell_json(const MetricStats& s, const std::optional<PaperValue>& paper, int decimals = 3);
Json paper_json(const PaperValue& p);

}  // namespace hm::report
