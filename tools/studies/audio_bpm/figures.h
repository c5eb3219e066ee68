// The audio tempo study's figures: Figure 7 (the predicted pmfs of the linear and each Fourier
// head on one test clip, the true bin marked), one per example clip, and macro F1 per head.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/audio_bpm/report.h"

namespace hm::studies {

// The pmfs over the 32 bins (x: the bin's lowest tempo) of example clip `example` for every
// head (first seed), the true bin marked by a dashed line.
report::LinePlot bpm_pmf_plot(const std::vector<BpmGroup>& groups, size_t example);
// Macro F1 per head against its frequencies (0: linear), mean ± std over seeds as error bars.
report::LinePlot bpm_f1_plot(const std::vector<BpmGroup>& groups);

std::vector<std::string> write_bpm_figures(const std::string& dir, const std::vector<BpmGroup>& groups);

}  // namespace hm::studies
