// The toy study's grid, labels and run costs.
#include "harmonic/tools/studies/fourier_toy/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"

namespace hm::studies {

using models::ToyHead;

namespace {

std::vector<int64_t> frequency_sweep() {
  std::vector<int64_t> n;
  for (int64_t f = 2; f <= 20; f += 2) n.push_back(f);
  return n;
}

}  // namespace

std::vector<ToyRunConfig> toy_study_grid(const ToyStudyPlan& plan) {
  using data::ToyDistribution;
  std::vector<ToyDistribution> datasets = plan.datasets;
  if (datasets.empty()) datasets = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};
  std::vector<uint64_t> seeds = plan.common.seeds;
  if (seeds.empty()) seeds = plan.common.quick ? std::vector<uint64_t>{1} : std::vector<uint64_t>{1, 2, 3, 42};
  const int64_t epochs = plan.epochs > 0 ? plan.epochs : (plan.common.quick ? kToyQuickEpochs : kToyFullEpochs);
  check(plan.epochs >= 0, "toy_study_grid", "epochs must be >= 0 (0: the mode's default), got {}", plan.epochs);
  check(plan.sample_points >= 0, "toy_study_grid", "sample_points must be >= 0, got {}", plan.sample_points);
  for (size_t i = 0; i < datasets.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      check(datasets[i] != datasets[j], "toy_study_grid", "dataset '{}' is listed twice",
            data::toy_distribution_name(datasets[i]));
  for (size_t i = 0; i < seeds.size(); ++i)
    for (size_t j = 0; j < i; ++j) check(seeds[i] != seeds[j], "toy_study_grid", "seed {} is listed twice", seeds[i]);

  // (head, frequencies, gamma) of one dataset and seed.
  struct Head {
    ToyHead head;
    int64_t frequencies;
    double gamma;
  };
  std::vector<Head> heads;
  heads.push_back({ToyHead::Linear, 0, 0.0});
  heads.push_back({ToyHead::GMM, 0, 0.0});
  heads.push_back({ToyHead::Regression, 0, 0.0});
  if (plan.common.quick) {
    for (int64_t n : frequency_sweep()) heads.push_back({ToyHead::Fourier, n, 0.0});
    heads.push_back({ToyHead::Fourier, 12, 1e-6});
    heads.push_back({ToyHead::GMMMLE, 0, 0.0});
    for (int64_t n : {4, 8, 12, 16, 20}) heads.push_back({ToyHead::FourierMLE, n, 0.0});
  } else {
    for (int64_t n : frequency_sweep())
      for (double g : {0.0, 1e-6}) heads.push_back({ToyHead::Fourier, n, g});
    heads.push_back({ToyHead::GMMMLE, 0, 0.0});
    for (int64_t n : frequency_sweep())
      for (double g : {0.0, 1e-6}) heads.push_back({ToyHead::FourierMLE, n, g});
  }

  std::vector<ToyRunConfig> grid;
  for (ToyDistribution d : datasets)
    for (uint64_t seed : seeds)
      for (const Head& h : heads) {
        ToyRunConfig c;
        c.dataset = d;
        c.head = h.head;
        c.frequencies = h.frequencies;
        c.gamma = h.gamma;
        c.seed = seed;
        c.epochs = epochs;
        c.device = plan.common.device;
        c.sample_points = is_figure_config(c) ? plan.sample_points : 0;
        grid.push_back(c);
      }
  return grid;
}

bool is_figure_config(const ToyRunConfig& c) {
  if (is_fourier(c.head)) return c.frequencies == 12 && c.gamma == 0.0;
  return true;
}

std::string toy_run_label(const ToyRunConfig& c) {
  std::string label = fmt::format("{} {}", data::toy_distribution_name(c.dataset), models::toy_head_name(c.head));
  if (is_fourier(c.head)) label += fmt::format(" N={} gamma={:g}", c.frequencies, c.gamma);
  return label + fmt::format(" seed={}", c.seed);
}

double toy_run_cost(const ToyRunConfig& c) {
  // Per-epoch cost relative to the linear head: the Fourier heads pay for their cos/sin table
  // GEMM (growing with N), the MLE heads also for the continuous density at the bin centres.
  double per_epoch = 1.0;
  const double n = static_cast<double>(c.frequencies);
  switch (c.head) {  // measured with 2 jobs at 500 epochs: linear 1.5 s, regression 1.1 s, ...
    case ToyHead::Linear:
      per_epoch = 1.0;
      break;
    case ToyHead::Regression:
      per_epoch = 0.75;
      break;
    case ToyHead::GMM:
      per_epoch = 1.2;
      break;
    case ToyHead::GMMMLE:
      per_epoch = 1.3;
      break;
    case ToyHead::Fourier:
      per_epoch = 1.0 + 0.03 * n;
      break;  // N 4: 1.6 s, N 20: 2.2 s
    case ToyHead::FourierMLE:
      per_epoch = 1.2 + 0.03 * n;
      break;  // N 4: 1.9 s, N 20: 2.5 s
  }
  if (c.gamma > 0) per_epoch += 0.3;  // the regulariser's autocorrelation
  return per_epoch * static_cast<double>(c.epochs);
}

}  // namespace hm::studies
