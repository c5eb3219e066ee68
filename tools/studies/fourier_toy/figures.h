// The toy study's figures (tools/report/plot.h): the frequency sweeps of the paper's Figures 8 and
// 9 and the learned pmfs against the true density of Figures 1 and 2.
#pragma once
#include <string>
#include <vector>

#include "tools/report/plot.h"
#include "tools/studies/fourier_toy/report.h"

namespace hm::studies {

// Figure 8 / 9: metric ("kl", "smoothness", "perplexity") of `head` (Fourier or FourierMLE)
// against N on one dataset, one series per gamma; the mean of each reference head
// (linear and GMM, or GMM-MLE) as a horizontal line over the N range. Empty series list when
// the dataset has no runs of head.
report::LinePlot toy_sweep_plot(const std::vector<ToyGroup>& groups, data::ToyDistribution dataset, models::ToyHead head,
                              const std::string& metric);

// Figures 1 and 2: the predicted pmfs of `heads` (Fourier heads at N = 12, gamma 0) for test
// point `point` of one dataset against the true pmf, over the bin centres on [-1, 1], from the
// smallest seed whose runs kept samples. Empty series list when there are none.
report::LinePlot toy_pmf_plot(const std::vector<ToyRunResult>& results, data::ToyDistribution dataset,
                            const std::vector<models::ToyHead>& heads, int64_t point);

// Writes every figure as .svg and .png into dir: fig8_<dataset>_{kl,smoothness},
// fig9_<dataset>_{kl,perplexity}, pmf_<dataset>_<point>, pmf_mle_<dataset>_<point> (the first
// two sample points), loss_<dataset> (training loss per epoch). Figures without data are
// skipped. Returns the file names.
std::vector<std::string> write_toy_figures(const std::string& dir, const std::vector<ToyRunResult>& results,
                                           const std::vector<ToyGroup>& groups);

}  // namespace hm::studies
