// The FRU study's figures (tools/report/plot.h), as SVG and PNG: the test metric against the
// epoch per data set (Figures 3, 4, 6, 7, 8: one line per model, mean over seeds with a
// ± std band; log y for the MSEs) and Figure 5's gradient norms over time (one plot per model
// and norm, one line per measured epoch, log y).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/fru/report.h"

namespace hm::studies {

// The metric of every model on one data set against the epoch; empty series when none ran.
report::LinePlot fru_curve_plot(const std::vector<FruGroup>& groups, const std::string& dataset);
// norm: "l1", "l2" or "linf"; empty series when the model has no measurements.
report::LinePlot fru_grad_plot(const FruGroup& group, const std::string& norm);

// Writes fig_<dataset> (fig3_mix-sin, fig4_mix-poly-5, ..., fig6_pixel, fig7_permuted,
// fig_row, fig8_kjv-genre) and fig5_<model>_<norm>; returns the file names.
std::vector<std::string> write_fru_figures(const std::string& dir, const std::vector<FruGroup>& groups);

}  // namespace hm::studies
