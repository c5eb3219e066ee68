// The toy study's aggregates and files: runs grouped over seeds (mean and population std),
// results.json (every run), summary.json (the aggregates), and summary.md with the paper's
// Tables 1, 5, 6 and 7 beside the measured numbers.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/fourier_toy/run.h"

namespace hm::studies {

using Json = nlohmann::json;

// Statistics over seeds, the paper's values and claims come from tools/report (generic).
using report::mean_std;
using report::MetricStats;
using report::PaperValue;

// One (dataset, head, frequencies, gamma) over its seeds.
struct ToyGroup {
  data::ToyDistribution dataset = data::ToyDistribution::Gaussian;
  models::ToyHead head = models::ToyHead::Linear;
  int64_t frequencies = 0;
  double gamma = 0;
  std::vector<uint64_t> seeds;
  MetricStats kl, smoothness, mse, perplexity, seconds;
};

// Groups in order of first appearance in results.
std::vector<ToyGroup> aggregate_toy_results(const std::vector<ToyRunResult>& results);

// The group or nullptr.
const ToyGroup* find_toy_group(const std::vector<ToyGroup>& groups, data::ToyDistribution dataset, models::ToyHead head,
                               int64_t frequencies = 0, double gamma = 0.0);

// A number the paper reports (mean +- std over its 4 seeds, and its table) for a head on a
// dataset: metric "kl", "smoothness", "mse" or "perplexity"; the Fourier heads mean N = 12,
// gamma = 0 (Tables 1, 5, 6, 7). nullopt when the paper has no such cell.
std::optional<PaperValue> paper_toy_value(data::ToyDistribution dataset, models::ToyHead head,
                                          const std::string& metric);
// The paper's value for a group's cell: as above, and nullopt for Fourier groups other than
// N = 12, gamma = 0 (the paper prints no number for them).
std::optional<PaperValue> paper_toy_value(const ToyGroup& group, const std::string& metric);

// The group's statistics of metric ("kl", "smoothness", "mse", "perplexity"); throws otherwise.
const MetricStats& toy_metric(const ToyGroup& group, const std::string& metric);

// How the study ran (recorded in the files).
struct ToyStudyInfo {
  std::string mode = "full";  // "full" or "quick"
  int jobs = 1;
  double wall_seconds = 0;  // the whole pool, start to end
};

// One run as JSON: {"config", "metrics", "seconds", "epoch_losses", "test_losses" ([[epoch,
// loss], ...]), "samples"?}; NaN metrics are null. And the inverse (null metrics come back as
// NaN; a missing "test_losses" is empty, config "bins" defaults to 50). Throws naming the run
// and the missing key or the malformed field (sample rows must be xy: 2 values, true_pmf /
// pred_pmf: bins values, the same count in each).
Json toy_config_json(const ToyRunConfig& config);
ToyRunConfig toy_config_from_json(const Json& j);
Json toy_run_json(const ToyRunResult& result);
ToyRunResult toy_run_from_json(const Json& j);

// results.json: {"study", "mode", "jobs", "wall_seconds", "runs": [toy_run_json...]}.
Json toy_results_json(const std::vector<ToyRunResult>& results, const ToyStudyInfo& info);
std::vector<ToyRunResult> toy_results_from_json(const Json& j, ToyStudyInfo* info = nullptr);

// summary.json: the groups with mean/std/count/per-seed values per metric, the paper's value
// and the outside-its-spread flag where it has one (report::cell_json), the claims with
// holds / seeds_holding / seeds_total (report::claims_json), and the timing.
Json toy_summary_json(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info);

// summary.md: Tables 1, 5, 6, 7 (measured mean +- std beside the paper's, flagged † outside
// its spread), the frequency sweeps of Figures 8 and 9, the claims table (holds on the mean,
// k/n seeds), and the run times per head.
std::string toy_summary_markdown(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info);

// The paper's qualitative claims checked on the groups, on the seed means and seed by seed
// (report::check_claim), e.g. {"Fourier-12 KL < linear KL on gaussian", holds, "0.1160 <
// 0.1700", 3 of 4 seeds}. Claims whose groups are missing are left out.
using ToyClaim = report::ClaimResult;
std::vector<ToyClaim> toy_claims(const std::vector<ToyGroup>& groups);

// Writes results.json, summary.json, summary.md and the figures (figures.h, regression_truth.h,
// appendix_b.h) into dir (created if needed), each file atomically; summary.md and summary.json
// end with Figure 10 and Appendix B. Returns the written file names.
std::vector<std::string> write_toy_study(const std::string& dir, const std::vector<ToyRunResult>& results,
                                         const ToyStudyInfo& info);

}  // namespace hm::studies
