// The Decision Transformer study's ablations (fourier-head.txt Appendix D.1, Figures 14 and 15):
// the linear and main Fourier heads at other model sizes and data set sizes, beside the main
// grid's pair at the mode's scale. The paper plots both figures without printing their numbers,
// so the report checks its claim (the Fourier head's returns above linear at every size) seed by
// seed, and says "not run yet" for an ablation without records.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/decision_transformer/report.h"

namespace hm::studies {

enum class DtAblation { Model, Data };

// One size of an ablation: its groups (either may be missing) and where it sits on the x axis.
struct DtAblationPoint {
  std::string name;  // "model=L2-d64", "data=50000", or "main grid" for the mode's scale
  double size = 0;   // parameters of the linear model (Model) or transitions (Data)
  const DtGroup* linear = nullptr;
  const DtGroup* fourier = nullptr;
};

// The points of one ablation by increasing size, the main grid's pair among them; empty when
// the ablation has no records.
std::vector<DtAblationPoint> dt_ablation_points(const std::vector<DtGroup>& groups, DtAblation ablation,
                                                int64_t main_frequencies);

// "Fourier-8 best-epoch normalised return > linear at model=L2-d64 (Figure 14)" for every
// ablation point with both heads (the main grid's point is Table 2's claim already).
std::vector<report::ClaimResult> dt_ablation_claims(const std::vector<DtGroup>& groups, int64_t main_frequencies);

// "## Figures 14 and 15" of summary.md, and the same as JSON.
std::string dt_ablations_markdown(const std::vector<DtGroup>& groups, int64_t main_frequencies);
Json dt_ablations_json(const std::vector<DtGroup>& groups, int64_t main_frequencies);

// Best-epoch normalised return against size (log x), one series per head with ± std bands.
report::LinePlot dt_ablation_plot(const std::vector<DtGroup>& groups, DtAblation ablation, int64_t main_frequencies);
// fig14_return_vs_model_size, fig15_return_vs_data_size (.svg, .png) where there are records.
std::vector<std::string> write_dt_ablation_figures(const std::string& dir, const std::vector<DtGroup>& groups,
                                                   int64_t main_frequencies);

}  // namespace hm::studies
