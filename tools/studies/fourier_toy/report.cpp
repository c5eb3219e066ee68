// The toy study's aggregates, the paper's numbers, the qualitative claims and summary.json
// (see report.h). summary.md: report_markdown.cpp.
#include "harmonic/tools/studies/fourier_toy/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <tuple>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/tools/report/seed_groups.h"
#include "harmonic/tools/studies/fourier_toy/appendix_b.h"
#include "harmonic/tools/studies/fourier_toy/figures.h"
#include "harmonic/tools/studies/fourier_toy/regression_truth.h"

namespace hm::studies {

using data::ToyDistribution;
using models::ToyHead;

namespace {

// The paper's tables (fourier-head.txt: Table 1 = the linear and Fourier columns of Table 5;
// Table 6 MSE; Table 7 the MLE heads). Fourier = N 12, gamma 0.
struct PaperEntry {
  ToyDistribution dataset;
  ToyHead head;
  const char* metric;
  double mean, std;
  const char* source = nullptr;  // nullptr: by metric and head (paper_source)
};

// Where a cell is printed: KL and smoothness of the linear and Fourier heads in Tables 1 and 5,
// the GMM head's in Table 5 only; MSE in Table 6; the MLE heads in Table 7.
const char* paper_source(const PaperEntry& e) {
  if (e.source) return e.source;
  const std::string metric = e.metric;
  if (metric == "mse") return "Table 6";
  if (e.head == ToyHead::GMMMLE || e.head == ToyHead::FourierMLE) return "Table 7";
  return e.head == ToyHead::GMM ? "Table 5" : "Tables 1 and 5";
}
constexpr ToyDistribution G = ToyDistribution::Gaussian, M = ToyDistribution::GMM2, B = ToyDistribution::Beta;
constexpr PaperEntry kPaper[] = {
    // Table 5 (and Table 1): KL divergence
    {G, ToyHead::Linear, "kl", 0.170, 0.052},
    {G, ToyHead::GMM, "kl", 0.026, 0.011},
    {G, ToyHead::Fourier, "kl", 0.116, 0.043},
    {M, ToyHead::Linear, "kl", 0.238, 0.032},
    {M, ToyHead::GMM, "kl", 0.030, 0.006},
    {M, ToyHead::Fourier, "kl", 0.146, 0.033},
    {B, ToyHead::Linear, "kl", 0.234, 0.032},
    {B, ToyHead::GMM, "kl", 0.407, 0.012},
    {B, ToyHead::Fourier, "kl", 0.191, 0.016},
    // Table 5 (and Table 1): smoothness
    {G, ToyHead::Linear, "smoothness", 0.116, 0.049},
    {G, ToyHead::GMM, "smoothness", 0.068, 0.012},
    {G, ToyHead::Fourier, "smoothness", 0.057, 0.011},
    {M, ToyHead::Linear, "smoothness", 0.068, 0.022},
    {M, ToyHead::GMM, "smoothness", 0.043, 0.009},
    {M, ToyHead::Fourier, "smoothness", 0.038, 0.007},
    {B, ToyHead::Linear, "smoothness", 0.127, 0.044},
    {B, ToyHead::GMM, "smoothness", 0.061, 0.003},
    {B, ToyHead::Fourier, "smoothness", 0.076, 0.021},
    // Table 6: MSE
    {G, ToyHead::Regression, "mse", 0.010, 0.001},
    {G, ToyHead::Linear, "mse", 0.013, 0.001},
    {G, ToyHead::GMM, "mse", 0.010, 0.001},
    {G, ToyHead::Fourier, "mse", 0.012, 0.001},
    {M, ToyHead::Regression, "mse", 0.121, 0.004},
    {M, ToyHead::Linear, "mse", 0.126, 0.004},
    {M, ToyHead::GMM, "mse", 0.120, 0.004},
    {M, ToyHead::Fourier, "mse", 0.123, 0.005},
    {B, ToyHead::Regression, "mse", 0.275, 0.009},
    {B, ToyHead::Linear, "mse", 0.276, 0.008},
    {B, ToyHead::GMM, "mse", 0.273, 0.009},
    {B, ToyHead::Fourier, "mse", 0.275, 0.008},
    // Table 7: the MLE heads
    {G, ToyHead::GMMMLE, "kl", 0.012, 0.002},
    {G, ToyHead::FourierMLE, "kl", 0.034, 0.003},
    {M, ToyHead::GMMMLE, "kl", 0.018, 0.001},
    {M, ToyHead::FourierMLE, "kl", 0.072, 0.005},
    {B, ToyHead::GMMMLE, "kl", 0.257, 0.030},
    {B, ToyHead::FourierMLE, "kl", 0.130, 0.005},
    {G, ToyHead::GMMMLE, "perplexity", 0.410, 0.014},
    {G, ToyHead::FourierMLE, "perplexity", 0.422, 0.019},
    {M, ToyHead::GMMMLE, "perplexity", 0.702, 0.015},
    {M, ToyHead::FourierMLE, "perplexity", 0.740, 0.014},
    {B, ToyHead::GMMMLE, "perplexity", 0.623, 0.035},
    {B, ToyHead::FourierMLE, "perplexity", 0.542, 0.017},
};

}  // namespace

std::vector<ToyGroup> aggregate_toy_results(const std::vector<ToyRunResult>& results) {
  auto by_config = report::group_over_seeds(
      results,
      [](const ToyRunResult& r) {
        const auto& c = r.config;
        return std::tuple(c.dataset, c.head, c.frequencies, c.gamma);
      },
      [](const ToyRunResult& r) { return r.config.seed; },
      [](const ToyRunResult& r) {
        const auto& c = r.config;
        return fmt::format("{} {} N={} gamma={:g}", data::toy_distribution_name(c.dataset),
                           models::toy_head_name(c.head), c.frequencies, c.gamma);
      },
      "aggregate_toy_results");
  std::vector<ToyGroup> groups;
  for (const auto& members : by_config) {
    const auto& c = members.first().config;
    ToyGroup& g = groups.emplace_back();
    g.dataset = c.dataset, g.head = c.head, g.frequencies = c.frequencies, g.gamma = c.gamma;
    g.seeds = members.seeds;
    auto stats = [&](double ToyRunResult::*field) { return members.stats([field](const ToyRunResult& r) { return r.*field; }); };
    g.kl = stats(&ToyRunResult::kl);
    g.smoothness = stats(&ToyRunResult::smoothness);
    g.mse = stats(&ToyRunResult::mse);
    g.perplexity = stats(&ToyRunResult::perplexity);
    g.seconds = stats(&ToyRunResult::seconds);
  }
  return groups;
}

const ToyGroup* find_toy_group(const std::vector<ToyGroup>& groups, ToyDistribution dataset, ToyHead head,
                               int64_t frequencies, double gamma) {
  for (const ToyGroup& g : groups)
    if (g.dataset == dataset && g.head == head && g.frequencies == frequencies && g.gamma == gamma) return &g;
  return nullptr;
}

std::optional<PaperValue> paper_toy_value(ToyDistribution dataset, ToyHead head, const std::string& metric) {
  for (const PaperEntry& e : kPaper)
    if (e.dataset == dataset && e.head == head && metric == e.metric) return PaperValue{e.mean, e.std, paper_source(e)};
  return std::nullopt;
}

std::optional<PaperValue> paper_toy_value(const ToyGroup& g, const std::string& metric) {
  if (is_fourier(g.head) && (g.frequencies != 12 || g.gamma != 0.0)) return std::nullopt;
  return paper_toy_value(g.dataset, g.head, metric);
}

const MetricStats& toy_metric(const ToyGroup& g, const std::string& metric) {
  if (metric == "kl") return g.kl;
  if (metric == "smoothness") return g.smoothness;
  if (metric == "mse") return g.mse;
  if (metric == "perplexity") return g.perplexity;
  throw_error("toy_metric", fmt::format("unknown metric '{}' (kl, smoothness, mse, perplexity)", metric));
}

std::vector<ToyClaim> toy_claims(const std::vector<ToyGroup>& groups) {
  std::vector<ToyClaim> out;
  // "a < b" on the means and seed by seed; skipped when a group is missing.
  auto less = [&](const std::string& claim, const ToyGroup* a, const ToyGroup* b, const std::string& metric) {
    if (!a || !b) return;
    out.push_back(report::check_claim(claim, toy_metric(*a, metric), toy_metric(*b, metric), report::less()));
  };
  for (ToyDistribution d : {G, M, B}) {
    const std::string name(data::toy_distribution_name(d));
    const ToyGroup* linear = find_toy_group(groups, d, ToyHead::Linear);
    const ToyGroup* fourier = find_toy_group(groups, d, ToyHead::Fourier, 12, 0.0);
    less(fmt::format("Fourier-12 KL < linear KL on {}", name), fourier, linear, "kl");
    less(fmt::format("Fourier-12 smoother than linear on {}", name), fourier, linear, "smoothness");
  }
  less("Fourier-12 KL < GMM KL on beta (non-Gaussian)", find_toy_group(groups, B, ToyHead::Fourier, 12, 0.0),
       find_toy_group(groups, B, ToyHead::GMM), "kl");
  less("Fourier-MLE-12 KL < GMM-MLE KL on beta", find_toy_group(groups, B, ToyHead::FourierMLE, 12, 0.0),
       find_toy_group(groups, B, ToyHead::GMMMLE), "kl");
  return out;
}

Json toy_summary_json(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info) {
  Json gs = Json::array();
  double run_seconds = 0;
  size_t runs = 0;
  for (const ToyGroup& g : groups) {
    Json j = {{"dataset", data::toy_distribution_name(g.dataset)},
              {"head", models::toy_head_name(g.head)},
              {"frequencies", g.frequencies},
              {"gamma", g.gamma},
              {"seeds", g.seeds},
              {"seconds", report::stats_json(g.seconds)}};
    for (const char* metric : {"kl", "smoothness", "mse", "perplexity"}) {
      const auto paper = paper_toy_value(g, metric);
      j[metric] = report::cell_json(toy_metric(g, metric), paper);
      if (paper) j["paper"][metric] = report::paper_json(*paper);
    }
    gs.push_back(std::move(j));
    run_seconds += g.seconds.mean * static_cast<double>(g.seconds.count);
    runs += g.seconds.count;
  }
  return {{"study", "fourier-toy"},
          {"mode", info.mode},
          {"jobs", info.jobs},
          {"runs", runs},
          {"wall_seconds", info.wall_seconds},
          {"run_seconds_total", run_seconds},
          {"std", "population (ddof = 0, numpy.std default) over seeds"},
          {"outside_paper", report::outside_rule_note()},
          {"groups", std::move(gs)},
          {"claims", report::claims_json(toy_claims(groups))}};
}

std::vector<std::string> write_toy_study(const std::string& dir, const std::vector<ToyRunResult>& results,
                                         const ToyStudyInfo& info) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check(!ec, "write_toy_study", "cannot create directory '{}': {}", dir, ec.message());
  const auto groups = aggregate_toy_results(results);
  const auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  write_file_atomic(path("results.json"), toy_results_json(results, info).dump(1) + "\n");
  // Figure 10 reads the regression runs' kept points; Appendix B needs no runs at all.
  const std::vector<RegressionPoint> regression = regression_points(results);
  const AppendixB& appendix_b = studies::appendix_b();
  Json summary = toy_summary_json(groups, info);
  summary["figure10"] = regression_truth_json(regression);
  summary["appendix_b"] = appendix_b_json(appendix_b);
  write_file_atomic(path("summary.json"), summary.dump(2) + "\n");
  write_file_atomic(path("summary.md"), toy_summary_markdown(groups, info) + regression_truth_markdown(regression) +
                                            appendix_b_markdown(appendix_b));
  std::vector<std::string> written = {"results.json", "summary.json", "summary.md"};
  for (const std::string& f : write_toy_figures(dir, results, groups)) written.push_back(f);
  for (const std::string& f : write_regression_figures(dir, results)) written.push_back(f);
  for (const std::string& f : write_appendix_b_figures(dir, appendix_b)) written.push_back(f);
  return written;
}

}  // namespace hm::studies
