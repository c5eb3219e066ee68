// The Fourier head paper's toy study (section 4.1, Appendices C.2/C.3) as a sweep of
// independent training runs: the configuration grid of each mode, run labels and costs.
// One run: run.h; reports and figures: report.h, figures.h; the registration: register.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fourier_toy/run.h"

namespace hm::studies {

// Epochs per run. Quick mode keeps the paper's 500: the linear head's KL gets worse than the
// Fourier head's only late in training, as it overfits (at 30 epochs the linear head still
// wins on Gaussian), and 500 epochs of this small MLP take about 2 s of one core.
constexpr int64_t kToyFullEpochs = 500;
constexpr int64_t kToyQuickEpochs = 500;

// What to sweep. Empty lists and zero epochs take the mode's defaults.
struct ToyStudyPlan {
  // quick: the reduced sweep and one seed; seeds: empty: {1, 2, 3, 42} (full), {1} (quick); no
  // paper scale (the toy is the paper's size).
  StudyCommon common;
  std::vector<data::ToyDistribution> datasets;  // empty: gaussian, gmm2, beta
  int64_t epochs = 0;                           // 0: 500 (full), kToyQuickEpochs (quick)
  int64_t sample_points = 4;                    // test pmfs kept by the heads the figures show
};

// Every configuration of the plan, dataset-major then seed, head, frequencies, gamma.
// Full, per dataset and seed: linear, gmm, regression, fourier N = 2, 4, ..., 20 x gamma
// {0, 1e-6}, gmm-mle, fourier-mle N = 2..20 x gamma {0, 1e-6} (44 runs; 528 for 3 x 4).
// Quick: linear, gmm, regression, fourier N = 2, 4, ..., 20 (gamma 0) and N = 12 with
// gamma 1e-6, gmm-mle, fourier-mle N in {4, 8, 12, 16, 20} (20 runs; 60 for 3 x 1; about a
// minute on 2 idle cores, two on a busy machine). Non-Fourier heads have frequencies 0 and
// gamma 0.
std::vector<ToyRunConfig> toy_study_grid(const ToyStudyPlan& plan);

// True for the heads whose sample pmfs the figures draw (linear, gmm, regression, Fourier and
// Fourier-MLE with N = 12 and gamma = 0, gmm-mle).
bool is_figure_config(const ToyRunConfig& config);

// "gaussian fourier N=12 gamma=1e-06 seed=3" (frequencies and gamma only for Fourier heads).
std::string toy_run_label(const ToyRunConfig& config);

// Relative cost of a run (epochs x a per-head factor measured on this machine), used to start
// the slowest runs first and to weigh the ETA.
double toy_run_cost(const ToyRunConfig& config);

}  // namespace hm::studies
