// The Decision Transformer study's figures: Figure 4 (best-epoch normalised return and pmf
// smoothness against the number of frequencies, the linear head as a reference line) and
// Figure 13 (next-action pmfs of the linear and the main Fourier head on held-out windows).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/decision_transformer/report.h"

namespace hm::studies {

// metric: "return" or "smoothness"; figure: the paper's figure the title names (Figure 16 for
// the other games' sweeps).
report::LinePlot dt_frequency_plot(const std::vector<DtGroup>& groups, const std::string& metric,
                                   const std::string& figure = "Figure 4");
// The pmfs of probe window `window` for the linear and the main Fourier head (x: action index
// in the paper's order), the data set's action marked.
report::LinePlot dt_pmf_plot(const std::vector<DtGroup>& groups, int64_t main_frequencies, size_t window);

std::vector<std::string> write_dt_figures(const std::string& dir, const std::vector<DtGroup>& groups,
                                          int64_t main_frequencies);

}  // namespace hm::studies
