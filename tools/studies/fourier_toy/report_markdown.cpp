// summary.md of the toy study: the paper's Tables 1, 5, 6, 7 with the measured mean +- std
// beside the paper's numbers, the frequency sweeps behind Figures 8 and 9, the qualitative
// claims and the run times.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "tools/studies/fourier_toy/report.h"
#include "tools/studies/fourier_toy/grid.h"
#include "tools/report/format.h"

namespace hm::studies {

using data::ToyDistribution;
using models::ToyHead;

namespace {

constexpr ToyDistribution kDatasets[] = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};

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

std::string cell(const MetricStats& s) {
  if (s.count == 0) return "-";
  if (std::isnan(s.mean)) return "nan";
  if (s.count == 1) return fmt::format("{:.3f}", s.mean);  // one seed: no spread to show
  return fmt::format("{:.3f} ± {:.3f}", s.mean, s.std);
}

// One table column: a head (Fourier heads at N, gamma) and the metric it shows.
struct Column {
  std::string title;
  ToyHead head;
  std::string metric;
  int64_t frequencies = 0;
};

const MetricStats* stats_of(const ToyGroup& g, const std::string& metric) {
  if (metric == "kl") return &g.kl;
  if (metric == "smoothness") return &g.smoothness;
  if (metric == "mse") return &g.mse;
  return &g.perplexity;
}

// | Dataset | <col> | paper | <col> | paper | ... with one row per dataset that has any group.
std::string table(const std::vector<ToyGroup>& groups, const std::vector<Column>& columns) {
  std::string out = "| Dataset |";
  std::string rule = "|---|";
  for (const Column& c : columns) {
    out += fmt::format(" {} | paper |", c.title);
    rule += "---|---|";
  }
  out += "\n" + rule + "\n";
  for (ToyDistribution d : kDatasets) {
    std::string row = fmt::format("| {} |", paper_dataset_name(d));
    bool any = false;
    for (const Column& c : columns) {
      const ToyGroup* g = find_toy_group(groups, d, c.head, c.frequencies, 0.0);
      any = any || g;
      row += fmt::format(" {} |", g ? cell(*stats_of(*g, c.metric)) : "-");
      auto p = paper_toy_value(d, c.head, c.metric);
      row += p ? fmt::format(" {:.3f} ± {:.3f} |", p->mean, p->std) : " - |";
    }
    if (any) out += row + "\n";
  }
  return out;
}

// Per dataset: rows N, columns metric x gamma for one Fourier head (Figures 8 and 9).
std::string sweep_table(const std::vector<ToyGroup>& groups, ToyHead head, const std::vector<std::string>& metrics,
                        const std::vector<std::string>& metric_titles) {
  std::set<int64_t> ns;
  std::set<double> gammas;
  for (const ToyGroup& g : groups)
    if (g.head == head) ns.insert(g.frequencies), gammas.insert(g.gamma);
  if (ns.empty()) return "(no runs)\n";
  std::string out;
  for (ToyDistribution d : kDatasets) {
    if (!find_toy_group(groups, d, head, *ns.begin(), *gammas.begin())) continue;
    out += fmt::format("\n{}:\n\n| N |", paper_dataset_name(d));
    std::string rule = "\n|---|";
    for (size_t m = 0; m < metrics.size(); ++m)
      for (double gamma : gammas) {
        out += fmt::format(" {} γ={:g} |", metric_titles[m], gamma);
        rule += "---|";
      }
    out += rule + "\n";
    for (int64_t n : ns) {
      out += fmt::format("| {} |", n);
      for (const std::string& metric : metrics)
        for (double gamma : gammas) {
          const ToyGroup* g = find_toy_group(groups, d, head, n, gamma);
          out += fmt::format(" {} |", g ? cell(*stats_of(*g, metric)) : "-");
        }
      out += "\n";
    }
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
      "Fourier = N 12, γ 0.\n";

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
  for (const ToyClaim& c : toy_claims(groups))
    out += fmt::format("- {}: **{}** ({})\n", c.claim, c.holds ? "yes" : "no", c.detail);

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
