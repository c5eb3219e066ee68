// The toy study's Figure 10 (see regression_truth.h).
#include "harmonic/tools/studies/fourier_toy/regression_truth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harmonic/ops/fourier_head.h"
#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/stats.h"

namespace hm::studies {

using data::ToyDistribution;
using models::ToyHead;

namespace {

constexpr ToyDistribution kDatasets[] = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};

bool has_samples(const ToyRunResult& r) {
  return r.config.head == ToyHead::Regression && r.sample_pred_pmf.defined() && r.sample_pred_pmf.numel() > 0 &&
         r.sample_true_pmf.defined() && r.sample_xy.defined() && r.sample_xy.dim() == 2 && r.sample_xy.size(1) == 2 &&
         r.sample_true_pmf.size(0) == r.sample_pred_pmf.size(0) && r.sample_xy.size(0) == r.sample_pred_pmf.size(0) &&
         r.sample_true_pmf.size(1) == r.sample_pred_pmf.size(1);
}

}  // namespace

std::vector<RegressionPoint> regression_points(const std::vector<ToyRunResult>& results) {
  std::vector<RegressionPoint> out;
  for (const ToyRunResult& r : results) {
    if (!has_samples(r)) continue;
    const int64_t n = r.sample_pred_pmf.size(0), m = r.sample_pred_pmf.size(1);
    const std::vector<double> centres = fourier_bin_centres(m).to_vector(), truth = r.sample_true_pmf.to_vector(),
                              pred = r.sample_pred_pmf.to_vector(), xy = r.sample_xy.to_vector();
    for (int64_t i = 0; i < n; ++i) {
      const double* t = truth.data() + i * m;
      const double* p = pred.data() + i * m;
      const int64_t pred_bin = std::max_element(p, p + m) - p, mode_bin = std::max_element(t, t + m) - t;
      double total = 0, mean = 0;
      for (int64_t j = 0; j < m; ++j) total += t[j], mean += t[j] * centres[j];
      out.push_back({.dataset = r.config.dataset,
                     .seed = r.config.seed,
                     .point = i,
                     .x = xy[2 * i],
                     .y = xy[2 * i + 1],
                     .predicted = centres[pred_bin],
                     .true_mean = total > 0 ? mean / total : NAN,
                     .true_mode = centres[mode_bin],
                     .density_ratio = t[mode_bin] > 0 ? t[pred_bin] / t[mode_bin] : NAN});
    }
  }
  return out;
}

report::LinePlot toy_regression_plot(const std::vector<ToyRunResult>& results, ToyDistribution dataset, int64_t point) {
  report::LinePlot p;
  p.x_label = "z";
  p.y_label = "probability";
  const ToyRunResult* run = nullptr;
  for (const ToyRunResult& r : results)
    if (r.config.dataset == dataset && has_samples(r) && point < r.sample_pred_pmf.size(0) &&
        (!run || r.config.seed < run->config.seed))
      run = &r;
  if (!run) return p;
  const std::vector<RegressionPoint> all = regression_points({*run});
  const RegressionPoint& rp = all[static_cast<size_t>(point)];
  const int64_t m = run->sample_true_pmf.size(1);
  const std::vector<double> truth = run->sample_true_pmf.to_vector();
  const std::vector<double> row(truth.begin() + point * m, truth.begin() + (point + 1) * m);
  const double top = *std::max_element(row.begin(), row.end());
  p.title = fmt::format("{}: regression vs p(z | x={:.2f}, y={:.2f}), seed {}", data::toy_distribution_name(dataset),
                        rp.x, rp.y, rp.seed);
  p.series.push_back({"true", fourier_bin_centres(m).to_vector(), row});
  p.series.push_back({"regression prediction", {rp.predicted, rp.predicted}, {0.0, top}});
  report::Series mean{"true mean", {rp.true_mean, rp.true_mean}, {0.0, top}};
  mean.dashed = true;
  p.series.push_back(std::move(mean));
  return p;
}

std::string regression_truth_markdown(const std::vector<RegressionPoint>& points) {
  std::string out = "\n## Figure 10: the regression head against the true density\n\n";
  if (points.empty())
    return out + "Not run yet: no regression run kept test points (they keep `sample_points`, 4 in both modes).\n";
  out +=
      "Every kept test point of the regression runs (the first 4 test points of each run, all seeds): the predicted "
      "value (its bin's centre) against the mean and the mode of the true conditional pmf over the 50 bin centres, "
      "and the true pmf at the predicted bin over its value at the mode (1: the prediction is a most likely value; "
      "near 0: it falls where z is rare). `fig10_<dataset>_<point>` draws the first two points of the smallest "
      "seed. The whole test set would need the regression runs to keep every point (a re-run).\n\n";
  std::vector<std::vector<std::string>> rows;
  for (ToyDistribution d : kDatasets) {
    std::vector<double> to_mean, to_mode, ratio;
    for (const RegressionPoint& p : points)
      if (p.dataset == d) {
        to_mean.push_back(std::fabs(p.predicted - p.true_mean));
        to_mode.push_back(std::fabs(p.predicted - p.true_mode));
        ratio.push_back(p.density_ratio);
      }
    if (to_mean.empty()) continue;
    rows.push_back({std::string(data::toy_distribution_name(d)), std::to_string(to_mean.size()),
                    report::format_stats(report::mean_std(to_mean)), report::format_stats(report::mean_std(to_mode)),
                    report::format_stats(report::mean_std(ratio))});
  }
  out += report::markdown_table(
      {"dataset", "points", "|prediction - true mean|", "|prediction - true mode|", "p(prediction) / p(mode)"}, rows);
  return out;
}

Json regression_truth_json(const std::vector<RegressionPoint>& points) {
  Json out = Json::array();
  for (const RegressionPoint& p : points)
    out.push_back({{"dataset", data::toy_distribution_name(p.dataset)},
                   {"seed", p.seed},
                   {"point", p.point},
                   {"x", p.x},
                   {"y", p.y},
                   {"predicted", p.predicted},
                   {"true_mean", report::number_or_null(p.true_mean)},
                   {"true_mode", p.true_mode},
                   {"density_ratio", report::number_or_null(p.density_ratio)}});
  return out;
}

std::vector<std::string> write_regression_figures(const std::string& dir, const std::vector<ToyRunResult>& results) {
  std::vector<std::string> written;
  for (ToyDistribution d : kDatasets)
    for (int64_t point = 0; point < 2; ++point)
      for (std::string& f : report::save_svg_and_png(toy_regression_plot(results, d, point), dir,
                                                     fmt::format("fig10_{}_{}", data::toy_distribution_name(d), point)))
        written.push_back(std::move(f));
  return written;
}

}  // namespace hm::studies
