// The Chronos study's data set size ablation (fourier-head.txt Appendix D.2, Figure 18): linear
// and the main Fourier head at the main model size trained on shares of the training series,
// beside the same pair on all of them. The paper plots MASE against 1.1e5..1.1e8 training points
// (four seeds for the smaller sizes) without printing the numbers; the claim it draws, the
// Fourier head's lower MASE at every size, is checked seed by seed, and a sweep without records
// is reported as not run yet.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/chronos/report.h"

namespace hm::studies {

// One training set size: its two groups (either may be missing).
struct ChronosDataPoint {
  double fraction = 1.0;
  int64_t series = 0;  // training series (KernelSynth + TSMixup)
  const ChronosGroup* linear = nullptr;
  const ChronosGroup* fourier = nullptr;
};

// By increasing size, the full-data pair last; empty when no group has data_fraction < 1.
std::vector<ChronosDataPoint> chronos_data_points(const std::vector<ChronosGroup>& groups);

// "fourier-256 MASE < linear at data=0.1 (4096 series; Figure 18)" at each smaller size with both heads.
std::vector<report::ClaimResult> chronos_data_claims(const std::vector<ChronosGroup>& groups);

// "## Figure 18" of summary.md (a "not run yet" line without records), and the same as JSON.
std::string chronos_data_markdown(const std::vector<ChronosGroup>& groups);
Json chronos_data_json(const std::vector<ChronosGroup>& groups);

// Relative MASE against training series (log x) for both heads, ± std bands.
report::LinePlot chronos_data_plot(const std::vector<ChronosGroup>& groups);
// fig18_mase_vs_data_size (.svg, .png) where there are records.
std::vector<std::string> write_chronos_data_figures(const std::string& dir, const std::vector<ChronosGroup>& groups);

}  // namespace hm::studies
