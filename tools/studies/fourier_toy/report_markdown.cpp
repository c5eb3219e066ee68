// summary.md of the toy study: the paper's Tables 1, 5, 6, 7 with the measured mean +- std
// beside the paper's numbers (flagged † outside their spread), the frequency sweeps behind
// Figures 8 and 9, the qualitative claims (on the means and seed by seed) and the run times.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "harmonic/tools/report/markdown.h"
#include "harmonic/tools/studies/fourier_toy/report.h"
#include "harmonic/tools/studies/fourier_toy/plan.h"
#include "harmonic/tools/report/format.h"

namespace hm::studies {

using data::ToyDistribution;
using models::ToyHead;

namespace {

constexpr ToyDistribution kToyMarkdownDatasets[] = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};

const char* paper_dataset_name(ToyDistribution d) {
  switch (d) {
    case ToyDistribution::Gaussian:
      return "Gaussian";
    case ToyDistribution::GMM2:
      return "GMM-2";
    case ToyDistribution::Beta:
      return "Beta";
  }
  return "?";
}

// One table column: a head (Fourier heads at N, gamma) and the metric it shows.
struct Column {
  std::string title;
  ToyHead head;
  std::string metric;
  int64_t frequencies = 0;
};

// | Dataset | <col> | paper | <col> | paper | ... with one row per dataset that has any group;
// a measured cell outside the paper's spread is flagged (report::measured_cell).
std::string table(const std::vector<ToyGroup>& groups, const std::vector<Column>& columns) {
  std::vector<std::string> header = {"Dataset"};
  for (const Column& c : columns) header.push_back(c.title), header.push_back("paper");
  std::vector<std::vector<std::string>> rows;
  for (ToyDistribution d : kToyMarkdownDatasets) {
    std::vector<std::string> row = {paper_dataset_name(d)};
    bool any = false;
    for (const Column& c : columns) {
      const ToyGroup* g = find_toy_group(groups, d, c.head, c.frequencies, 0.0);
      any = any || g;
      const auto paper = paper_toy_value(d, c.head, c.metric);
      row.push_back(g ? report::measured_cell(toy_metric(*g, c.metric), paper) : "-");
      row.push_back(report::format_paper(paper));
    }
    if (any) rows.push_back(std::move(row));
  }
  return report::markdown_table(header, rows);
}

// Per dataset: rows N, columns metric x gamma for one Fourier head (Figures 8 and 9); the
// N = 12, gamma = 0 cells flagged against the paper's value, which a line under the table gives.
std::string sweep_table(const std::vector<ToyGroup>& groups, ToyHead head, const std::vector<std::string>& metrics,
                        const std::vector<std::string>& metric_titles) {
  std::set<int64_t> ns;
  std::set<double> gammas;
  for (const ToyGroup& g : groups)
    if (g.head == head) ns.insert(g.frequencies), gammas.insert(g.gamma);
  if (ns.empty()) return "(no runs)\n";
  std::string out;
  for (ToyDistribution d : kToyMarkdownDatasets) {
    if (!find_toy_group(groups, d, head, *ns.begin(), *gammas.begin())) continue;
    std::vector<std::string> header = {"N"};
    for (size_t m = 0; m < metrics.size(); ++m)
      for (double gamma : gammas) header.push_back(fmt::format("{} γ={:g}", metric_titles[m], gamma));
    std::vector<std::vector<std::string>> rows;
    for (int64_t n : ns) {
      std::vector<std::string> row = {std::to_string(n)};
      for (const std::string& metric : metrics)
        for (double gamma : gammas) {
          const ToyGroup* g = find_toy_group(groups, d, head, n, gamma);
          row.push_back(g ? report::measured_cell(toy_metric(*g, metric), paper_toy_value(*g, metric)) : "-");
        }
      rows.push_back(std::move(row));
    }
    out += fmt::format("\n{}:\n\n", paper_dataset_name(d)) + report::markdown_table(header, rows);
    std::vector<std::string> paper;
    for (size_t m = 0; m < metrics.size(); ++m)
      if (auto p = paper_toy_value(d, head, metrics[m]))
        paper.push_back(fmt::format("{} {} ({})", metric_titles[m], report::format_paper(p), p->source));
    if (!paper.empty()) out += fmt::format("\nThe paper at N = 12, γ = 0: {}.\n", fmt::join(paper, "; "));
  }
  return out;
}

}  // namespace

std::string toy_summary_markdown(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info) {
  std::set<uint64_t> seeds;
  size_t runs = 0;
  double run_seconds = 0;
  for (const ToyGroup& g : groups) {
    seeds.insert(g.seeds.begin(), g.seeds.end());
    runs += g.seeds.size();
    run_seconds += g.seconds.mean * static_cast<double>(g.seconds.count);
  }
  std::string out = "# Fourier head toy study (section 4.1, Appendices C.2 and C.3)\n\n";
  out +=
      fmt::format("Mode {}: {} runs, seeds {{{}}}, {} jobs. Wall time {} ({:.1f} s); the runs' own times sum to {}.\n",
                  info.mode, runs, fmt::join(seeds, ", "), info.jobs, report::format_duration(info.wall_seconds),
                  info.wall_seconds, report::format_duration(run_seconds));
  out +=
      "Cells are mean ± std over the seeds, std the population std (ddof = 0, numpy.std's default); "
      "a single seed shows its value alone. \"paper\" columns are the paper's numbers (4 seeds, 500 epochs). "
      "Fourier = N 12, γ 0.\n\n";
  out += report::outside_rule_note() + "\n";

  out += "\n## Table 1: linear vs Fourier head\n\n";
  out += table(groups, {{"KL linear", ToyHead::Linear, "kl"},
                        {"KL Fourier", ToyHead::Fourier, "kl", 12},
                        {"smoothness linear", ToyHead::Linear, "smoothness"},
                        {"smoothness Fourier", ToyHead::Fourier, "smoothness", 12}});
  out +=
      "\n## Table 5: KL divergence and smoothness of the classification heads\n\nKL divergence (lower is better):\n\n";
  out +=
      table(groups,
            {{"linear", ToyHead::Linear, "kl"}, {"GMM", ToyHead::GMM, "kl"}, {"Fourier", ToyHead::Fourier, "kl", 12}});
  out += "\nSmoothness (lower is better):\n\n";
  out += table(groups, {{"linear", ToyHead::Linear, "smoothness"},
                        {"GMM", ToyHead::GMM, "smoothness"},
                        {"Fourier", ToyHead::Fourier, "smoothness", 12}});
  out += "\n## Table 6: MSE of the expected bin\n\n";
  out += table(groups, {{"regression", ToyHead::Regression, "mse"},
                        {"linear", ToyHead::Linear, "mse"},
                        {"GMM", ToyHead::GMM, "mse"},
                        {"Fourier", ToyHead::Fourier, "mse", 12}});
  out += "\n## Table 7: MLE heads\n\n";
  out += table(groups, {{"KL GMM-MLE", ToyHead::GMMMLE, "kl"},
                        {"KL Fourier-MLE", ToyHead::FourierMLE, "kl", 12},
                        {"perplexity GMM-MLE", ToyHead::GMMMLE, "perplexity"},
                        {"perplexity Fourier-MLE", ToyHead::FourierMLE, "perplexity", 12}});

  out += "\n## The paper's qualitative claims\n\n";
  out += report::claims_markdown(toy_claims(groups), true);

  out += "\n## Figure 8: Fourier head frequency sweep\n";
  out += sweep_table(groups, ToyHead::Fourier, {"kl", "smoothness"}, {"KL", "smoothness"});
  out += "\n## Figure 9: Fourier-MLE frequency sweep\n";
  out += sweep_table(groups, ToyHead::FourierMLE, {"kl", "perplexity"}, {"KL", "perplexity"});

  out += "\n## Run times\n\n| head | runs | seconds per run (mean) |\n|---|---|---|\n";
  for (ToyHead head :
       {ToyHead::Linear, ToyHead::GMM, ToyHead::Regression, ToyHead::Fourier, ToyHead::GMMMLE, ToyHead::FourierMLE}) {
    size_t count = 0;
    double total = 0;
    for (const ToyGroup& g : groups)
      if (g.head == head) count += g.seconds.count, total += g.seconds.mean * static_cast<double>(g.seconds.count);
    if (count > 0) out += fmt::format("| {} | {} | {:.2f} |\n", models::toy_head_name(head), count, total / count);
  }
  return out;
}

}  // namespace hm::studies
