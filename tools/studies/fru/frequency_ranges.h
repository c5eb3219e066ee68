// The FRU study's frequency ranges (fru.txt Appendix D, Figures 10-12): FRU with 200 units on
// row and pixel images with 5 to 60 frequencies over different ranges (plan.h, FruFreqPoint).
// The paper plots accuracy curves without printing numbers; its readings are checked as
// claims: on rows the range that covers both low and high frequencies beats either half (Figure
// 11) and more frequencies do better (Figure 10); on pixels more frequencies do better, and a
// range up to 25 of 784 does about as well as the whole range (Figure 12: reported as the
// difference, no claim). Without records the section says the part has not run.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/fru/report.h"

namespace hm::studies {

// The freq part's group of (dataset, FRU_{freqs,10}, range), or nullptr.
const FruGroup* find_fru_freq_group(const std::vector<FruGroup>& groups, const std::string& dataset, int64_t freqs,
                                    const std::string& range);

std::vector<report::ClaimResult> fru_freq_claims(const std::vector<FruGroup>& groups);
// "## Frequency ranges" of summary.md: final test accuracy per point beside the first epoch's.
std::string fru_freq_markdown(const std::vector<FruGroup>& groups);
// Test accuracy against the epoch, one series per (N, range) of a data set.
report::LinePlot fru_freq_plot(const std::vector<FruGroup>& groups, const std::string& dataset);
// fig10_row_frequency_ranges, fig12_pixel_frequency_ranges (.svg, .png) where there are records.
std::vector<std::string> write_fru_freq_figures(const std::string& dir, const std::vector<FruGroup>& groups);

}  // namespace hm::studies
