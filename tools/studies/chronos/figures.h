// The Chronos study's figures: Figure 17 (next-value densities of the linear and the main
// Fourier head on held-out series, the true next value marked), the forecast fan of each of
// them on a held-out series (history, truth, median and the 10-90% band), Table 8's
// smoothness and relative MASE against the number of frequencies (linear as a reference
// line), and Figure 19 (relative MASE against parameters for linear and the main Fourier head).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/chronos/report.h"

namespace hm::studies {

// The pmfs of held-out example `example` at the main size (x: scaled value; y: pmf / bin width).
report::LinePlot chronos_pmf_plot(const std::vector<ChronosGroup>& groups, size_t example);
// The first seed's forecast of the first held-out series by `group`.
report::LinePlot chronos_fan_plot(const ChronosGroup& group);
// metric: "smoothness" or "mase", against N at the main size.
report::LinePlot chronos_frequency_plot(const std::vector<ChronosGroup>& groups, const std::string& metric);
report::LinePlot chronos_size_plot(const std::vector<ChronosGroup>& groups);

std::vector<std::string> write_chronos_figures(const std::string& dir, const std::vector<ChronosGroup>& groups);

}  // namespace hm::studies
