// The Fourier head paper's Figure 10 in the toy study's report: the pointwise regression head's
// prediction against the true conditional density at the test points the runs kept. The paper's
// point: regression lands on the conditional mean, which is a likely value of z on the unimodal
// Gaussian data set and falls between the modes on GMM-2 and Beta.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/report/plot.h"
#include "harmonic/tools/studies/fourier_toy/run.h"

namespace hm::studies {

using Json = nlohmann::json;

// One kept test point of a regression run, on the bin centres of [-1, 1].
struct RegressionPoint {
  data::ToyDistribution dataset = data::ToyDistribution::Gaussian;
  uint64_t seed = 0;
  int64_t point = 0;
  double x = 0, y = 0;       // the conditioning values (raw)
  double predicted = 0;      // the centre of the predicted bin
  double true_mean = 0;      // sum_j c_j p_j of the true pmf
  double true_mode = 0;      // the centre of its largest bin
  double density_ratio = 0;  // p(predicted bin) / p(mode bin): 1 on the mode, near 0 between modes
};

// Every regression run's kept points, in results order.
std::vector<RegressionPoint> regression_points(const std::vector<ToyRunResult>& results);

// Figure 10: the true pmf of test point `point` (smallest seed with samples) with the
// regression prediction and the true mean as vertical lines. Empty series without data.
report::LinePlot toy_regression_plot(const std::vector<ToyRunResult>& results, data::ToyDistribution dataset,
                                     int64_t point);

// "## Figure 10" of summary.md: per data set over every kept point, the mean distance of the
// prediction to the true mean and to the true mode and the mean density ratio; says "not run
// yet" when no regression run kept points.
std::string regression_truth_markdown(const std::vector<RegressionPoint>& points);
Json regression_truth_json(const std::vector<RegressionPoint>& points);
// fig10_<dataset>_<point> for points 0 and 1 (.svg, .png); returns the file names.
std::vector<std::string> write_regression_figures(const std::string& dir, const std::vector<ToyRunResult>& results);

}  // namespace hm::studies
