// The toy study's figures (see figures.h).
#include "harmonic/tools/studies/fourier_toy/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "harmonic/core/error.h"
#include "harmonic/ops/fourier_head.h"

namespace hm::studies {

using data::ToyDistribution;
using models::ToyHead;

namespace {

std::string head_title(ToyHead head) {
  switch (head) {
    case ToyHead::Linear:
      return "linear";
    case ToyHead::GMM:
      return "GMM";
    case ToyHead::Fourier:
      return "Fourier N=12";
    case ToyHead::Regression:
      return "regression";
    case ToyHead::GMMMLE:
      return "GMM-MLE";
    case ToyHead::FourierMLE:
      return "Fourier-MLE N=12";
  }
  return "?";
}

// The run of (dataset, head, seed) that kept samples (Fourier heads: N 12, gamma 0).
const ToyRunResult* sample_run(const std::vector<ToyRunResult>& results, ToyDistribution d, ToyHead head,
                               uint64_t seed) {
  for (const ToyRunResult& r : results) {
    const auto& c = r.config;
    if (c.dataset != d || c.head != head || c.seed != seed) continue;
    if (is_fourier(head) && (c.frequencies != 12 || c.gamma != 0.0)) continue;
    if (r.sample_pred_pmf.defined() && r.sample_pred_pmf.numel() > 0) return &r;
  }
  return nullptr;
}

}  // namespace

report::LinePlot toy_sweep_plot(const std::vector<ToyGroup>& groups, ToyDistribution dataset, ToyHead head,
                                const std::string& metric) {
  check(is_fourier(head), "toy_sweep_plot", "head must be fourier or fourier-mle, got '{}'",
        models::toy_head_name(head));
  report::LinePlot p;
  const bool mle = head == ToyHead::FourierMLE;
  p.title = fmt::format("{}: {} vs frequencies ({})", data::toy_distribution_name(dataset), metric,
                        mle ? "Fourier-MLE, Figure 9" : "Fourier, Figure 8");
  p.x_label = "frequencies N";
  p.y_label = metric;
  std::set<double> gammas;
  double n_min = std::numeric_limits<double>::infinity(), n_max = -n_min;
  for (const ToyGroup& g : groups)
    if (g.dataset == dataset && g.head == head) {
      gammas.insert(g.gamma);
      n_min = std::min(n_min, static_cast<double>(g.frequencies));
      n_max = std::max(n_max, static_cast<double>(g.frequencies));
    }
  if (gammas.empty()) return p;
  // The paper's values, marked at N = 12 in the colour of the series they belong to.
  std::vector<report::Series> paper;
  auto mark_paper = [&](ToyHead h, const std::string& title) {
    const auto v = paper_toy_value(dataset, h, metric);
    if (!v) return;
    report::Series s{fmt::format("paper {} ({})", title, v->source), {12}, {v->mean}};
    s.line = false, s.y_low = {v->mean - v->std}, s.y_high = {v->mean + v->std};
    s.color = static_cast<int>(p.series.size() - 1);
    paper.push_back(std::move(s));
  };
  for (double gamma : gammas) {
    report::Series s{fmt::format("{} gamma={:g}", mle ? "Fourier-MLE" : "Fourier", gamma), {}, {}, true};
    for (const ToyGroup& g : groups)  // groups come in grid order: increasing N
      if (g.dataset == dataset && g.head == head && g.gamma == gamma) {
        const MetricStats& m = toy_metric(g, metric);
        s.x.push_back(static_cast<double>(g.frequencies));
        s.y.push_back(m.mean);
        s.y_low.push_back(m.mean - m.std), s.y_high.push_back(m.mean + m.std);
      }
    p.series.push_back(std::move(s));
    if (gamma == 0.0) mark_paper(head, mle ? "Fourier-MLE N=12" : "Fourier N=12");
  }
  const std::vector<ToyHead> references =
      mle ? std::vector<ToyHead>{ToyHead::GMMMLE} : std::vector<ToyHead>{ToyHead::Linear, ToyHead::GMM};
  for (ToyHead ref : references)
    if (const ToyGroup* g = find_toy_group(groups, dataset, ref)) {
      const MetricStats& m = toy_metric(*g, metric);
      report::Series s{std::string(head_title(ref)), {n_min, n_max}, {m.mean, m.mean}};
      s.y_low = {m.mean - m.std, m.mean - m.std}, s.y_high = {m.mean + m.std, m.mean + m.std};
      p.series.push_back(std::move(s));
      mark_paper(ref, head_title(ref));
    }
  for (report::Series& s : paper) p.series.push_back(std::move(s));
  return p;
}

report::LinePlot toy_pmf_plot(const std::vector<ToyRunResult>& results, ToyDistribution dataset,
                              const std::vector<ToyHead>& heads, int64_t point) {
  report::LinePlot p;
  p.x_label = "z";
  p.y_label = "probability";
  // The smallest seed for which every listed head kept samples: the same test points.
  std::set<uint64_t> seeds;
  for (const ToyRunResult& r : results)
    if (r.config.dataset == dataset) seeds.insert(r.config.seed);
  for (uint64_t seed : seeds) {
    std::vector<const ToyRunResult*> runs;
    for (ToyHead h : heads)
      if (const ToyRunResult* r = sample_run(results, dataset, h, seed)) runs.push_back(r);
    if (runs.size() != heads.size() || runs.empty()) continue;
    bool has_point = true;  // every run's rows (toy_results_from_json checks their widths)
    for (const ToyRunResult* r : runs)
      has_point = has_point && point < r->sample_pred_pmf.size(0) && r->sample_true_pmf.defined() &&
                  point < r->sample_true_pmf.size(0) && r->sample_xy.defined() && point < r->sample_xy.size(0) &&
                  r->sample_xy.size(1) == 2;
    if (!has_point) continue;
    const std::vector<double> truth = runs[0]->sample_true_pmf.to_vector();
    const int64_t m = runs[0]->sample_true_pmf.size(1);
    const std::vector<double> xy = runs[0]->sample_xy.to_vector();
    const std::vector<double> centres = fourier_bin_centres(m).to_vector();
    p.title = fmt::format("{}: p(z | x={:.2f}, y={:.2f}), seed {}", data::toy_distribution_name(dataset), xy[2 * point],
                          xy[2 * point + 1], seed);
    p.series.push_back(
        {"true", centres, std::vector<double>(truth.begin() + point * m, truth.begin() + (point + 1) * m)});
    for (size_t h = 0; h < heads.size(); ++h) {
      const std::vector<double> pred = runs[h]->sample_pred_pmf.to_vector();
      check(runs[h]->sample_pred_pmf.size(1) == m, "toy_pmf_plot", "{} has {} bins, the truth {}",
            models::toy_head_name(heads[h]), runs[h]->sample_pred_pmf.size(1), m);
      p.series.push_back({head_title(heads[h]), centres,
                          std::vector<double>(pred.begin() + point * m, pred.begin() + (point + 1) * m)});
    }
    return p;
  }
  return p;
}

report::LinePlot toy_loss_plot(const std::vector<ToyRunResult>& results, ToyDistribution dataset) {
  report::LinePlot p;
  p.x_label = "epoch";
  p.y_label = "mean loss (cross-entropy)";
  std::set<uint64_t> seeds;
  int colour = 0;
  for (ToyHead h : {ToyHead::Linear, ToyHead::GMM, ToyHead::Fourier}) {  // cross-entropy heads: one scale
    std::vector<std::vector<std::pair<double, double>>> train, test;
    for (const ToyRunResult& r : results) {
      if (r.config.dataset != dataset || r.config.head != h) continue;
      if (is_fourier(h) && (r.config.frequencies != 12 || r.config.gamma != 0.0)) continue;
      if (!r.epoch_losses.empty()) {
        train.emplace_back();
        for (size_t e = 0; e < r.epoch_losses.size(); ++e)
          train.back().emplace_back(static_cast<double>(e + 1), r.epoch_losses[e]);
        seeds.insert(r.config.seed);
      }
      if (!r.test_losses.empty()) {
        test.emplace_back();
        for (const auto& [epoch, loss] : r.test_losses) test.back().emplace_back(static_cast<double>(epoch), loss);
      }
    }
    const report::CurveStats tr = report::mean_curve(train), te = report::mean_curve(test);
    if (!tr.x.empty()) {
      report::Series s{head_title(h) + " train", tr.x, tr.mean};
      if (tr.curves > 1)
        for (size_t i = 0; i < tr.x.size(); ++i)
          s.y_low.push_back(tr.mean[i] - tr.std[i]), s.y_high.push_back(tr.mean[i] + tr.std[i]);
      s.color = colour;
      p.series.push_back(std::move(s));
    }
    if (!te.x.empty()) {
      report::Series s{head_title(h) + " test (held out)", te.x, te.mean};
      s.dashed = true, s.markers = te.x.size() == 1, s.color = colour;
      p.series.push_back(std::move(s));
    }
    ++colour;
  }
  // ASCII and short: the PNG font has no "±" and the title fits ~55 characters.
  p.title = fmt::format("{}: train (solid) and test (dashed) loss, {} seed{}", data::toy_distribution_name(dataset),
                        seeds.size(), seeds.size() == 1 ? "" : "s");
  return p;
}

std::vector<std::string> write_toy_figures(const std::string& dir, const std::vector<ToyRunResult>& results,
                                           const std::vector<ToyGroup>& groups) {
  std::vector<std::string> written;
  auto save = [&](const report::LinePlot& plot, const std::string& name) {
    for (std::string& f : report::save_svg_and_png(plot, dir, name)) written.push_back(std::move(f));
  };
  for (ToyDistribution d : {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta}) {
    const std::string name(data::toy_distribution_name(d));
    for (const char* metric : {"kl", "smoothness"})
      save(toy_sweep_plot(groups, d, ToyHead::Fourier, metric), fmt::format("fig8_{}_{}", name, metric));
    for (const char* metric : {"kl", "perplexity"})
      save(toy_sweep_plot(groups, d, ToyHead::FourierMLE, metric), fmt::format("fig9_{}_{}", name, metric));
    for (int64_t point = 0; point < 2; ++point) {
      save(toy_pmf_plot(results, d, {ToyHead::Linear, ToyHead::GMM, ToyHead::Fourier}, point),
           fmt::format("pmf_{}_{}", name, point));
      save(toy_pmf_plot(results, d, {ToyHead::GMMMLE, ToyHead::FourierMLE}, point),
           fmt::format("pmf_mle_{}_{}", name, point));
    }
    save(toy_loss_plot(results, d), fmt::format("loss_{}", name));
  }
  return written;
}

}  // namespace hm::studies
