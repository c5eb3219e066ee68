// The RNG-LM study's report: per model (base, LoRA token head, LoRA Fourier head, and the
// longer-training rows) and per (mu, sigma), TVD as the paper defines it (0.5 L-inf), the
// standard TVD (0.5 L1), unique and invalid samples, mean ± std over seeds; the improvement
// factors over the base model beside the paper's 2.07x and 4.86x; the claims checked seed by
// seed; summary.json, summary.md and the Figure 3-style histograms (figures.cpp).
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

// One model over its seeds: per distribution (index 0..3) and the mean over the four (index 4).
struct RngGroup {
  std::string model;
  std::vector<uint64_t> seeds;
  std::vector<report::MetricStats> tvd_paper, tvd_l1, unique, invalid;  // 5 each
  report::MetricStats loss_after, seconds;
  std::vector<Json> results;  // the runs' results, in seed order
};

// The records grouped by model, in rng_models() order (models without runs left out).
std::vector<RngGroup> rng_groups_of(const std::vector<RunRecord>& records);
std::vector<report::ClaimResult> rng_claims(const std::vector<RngGroup>& groups);
std::string rng_summary_markdown(const std::vector<RngGroup>& groups, const StudyInfo& info, const Json& base_info);
// Figure 3: per (mu, sigma), the median-TVD seed's histogram of each model over the truth.
std::vector<std::string> write_rng_figures(const std::string& dir, const std::vector<RngGroup>& groups);
StudyReport write_rng_study(const ReportInput& in);

}  // namespace hm::studies
