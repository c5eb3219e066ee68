// The toy study's figures (tools/report/plot.h): the frequency sweeps of the paper's Figures 8 and
// 9 and the learned pmfs against the true density of Figures 1 and 2.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/fourier_toy/report.h"

namespace hm::studies {

// Figure 8 / 9: metric ("kl", "smoothness", "perplexity") of `head` (Fourier or FourierMLE)
// against N on one dataset, one series per gamma (mean over seeds with a ± std band); the
// mean of each reference head (linear and GMM, or GMM-MLE) as a horizontal line with its band
// over the N range; then the paper's values (N = 12, gamma 0, and the reference heads) as
// markers with ± std error bars at N = 12, in the colour of their series. Empty series list
// when the dataset has no runs of head.
report::LinePlot toy_sweep_plot(const std::vector<ToyGroup>& groups, data::ToyDistribution dataset,
                                models::ToyHead head, const std::string& metric);

// Figures 1 and 2: the predicted pmfs of `heads` (Fourier heads at N = 12, gamma 0) for test
// point `point` of one dataset against the true pmf, over the bin centres on [-1, 1], from the
// smallest seed whose runs kept samples. Empty series list when there are none.
report::LinePlot toy_pmf_plot(const std::vector<ToyRunResult>& results, data::ToyDistribution dataset,
                              const std::vector<models::ToyHead>& heads, int64_t point);

// Training and held-out curves of the cross-entropy heads (linear, GMM, Fourier N = 12 gamma
// 0) on one dataset: the mean training loss per epoch over seeds (solid, ± std band with
// several seeds) and the mean test loss at the evaluation points (dashed, same colour). The
// toy protocol has no validation split (the paper's 80/20 train/test), so the held-out curve
// is the test loss. Curves average the epochs all seeds have.
report::LinePlot toy_loss_plot(const std::vector<ToyRunResult>& results, data::ToyDistribution dataset);

// Writes every figure as .svg and .png into dir: fig8_<dataset>_{kl,smoothness},
// fig9_<dataset>_{kl,perplexity}, pmf_<dataset>_<point>, pmf_mle_<dataset>_<point> (the first
// two sample points), loss_<dataset> (toy_loss_plot). Figures without data are
// skipped. Returns the file names.
std::vector<std::string> write_toy_figures(const std::string& dir, const std::vector<ToyRunResult>& results,
                                           const std::vector<ToyGroup>& groups);

}  // namespace hm::studies
