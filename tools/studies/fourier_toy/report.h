// The toy study's aggregates and files: runs grouped over seeds (mean and population std),
// results.json (every run), summary.json (the aggregates), and summary.md with the paper's
// Tables 1, 5, 6 and 7 beside the measured numbers.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/studies/fourier_toy/run.h"

namespace hm::studies {

using Json = nlohmann::json;

// Mean and standard deviation of one metric over seeds. std is the population std
// (ddof = 0, numpy.std's default): sqrt(mean((v - mean)^2)). A NaN value makes both NaN
// (a diverged run must show); no values gives NaN too.
struct MetricStats {
  double mean = 0, std = 0;
  size_t count = 0;
};
MetricStats mean_std(const std::vector<double>& values);

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

// A number the paper reports (mean +- std over its 4 seeds) for a head on a dataset:
// metric "kl", "smoothness", "mse" or "perplexity"; the Fourier heads mean N = 12, gamma = 0
// (Tables 1, 5, 6, 7). nullopt when the paper has no such cell.
struct PaperValue {
  double mean, std;
};
std::optional<PaperValue> paper_toy_value(data::ToyDistribution dataset, models::ToyHead head,
                                          const std::string& metric);

// How the study ran (recorded in the files).
struct ToyStudyInfo {
  std::string mode = "full";  // "full" or "quick"
  int jobs = 1;
  double wall_seconds = 0;  // the whole pool, start to end
};

// One run as JSON: {"config", "metrics", "seconds", "epoch_losses", "test_losses",
// "samples"?}; NaN metrics are null. And the inverse (throws naming the missing key).
Json toy_config_json(const ToyRunConfig& config);
ToyRunConfig toy_config_from_json(const Json& j);
Json toy_run_json(const ToyRunResult& result);
ToyRunResult toy_run_from_json(const Json& j);

// results.json: {"study", "mode", "jobs", "wall_seconds", "runs": [toy_run_json...]}.
Json toy_results_json(const std::vector<ToyRunResult>& results, const ToyStudyInfo& info);
// The inverse (null metrics come back as NaN). Throws naming the missing key.
std::vector<ToyRunResult> toy_results_from_json(const Json& j, ToyStudyInfo* info = nullptr);

// summary.json: the groups with mean/std/count per metric, the paper's values where it has
// them, the checks of the paper's qualitative claims, and the timing.
Json toy_summary_json(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info);

// summary.md: Tables 1, 5, 6, 7 (measured mean +- std beside the paper's), the frequency
// sweeps of Figures 8 and 9, the qualitative checks, and the run times per head.
std::string toy_summary_markdown(const std::vector<ToyGroup>& groups, const ToyStudyInfo& info);

// The paper's qualitative claims checked on the groups: one line each, e.g.
// {"Fourier-12 KL < linear KL on gaussian", true, "0.116 < 0.170"}. Claims whose groups are
// missing are left out.
struct ToyClaim {
  std::string claim;
  bool holds = false;
  std::string detail;
};
std::vector<ToyClaim> toy_claims(const std::vector<ToyGroup>& groups);

// Writes results.json, summary.json, summary.md and the figures (tools/studies/fourier_toy/figures.h) into
// dir (created if needed), each file atomically. Returns the written file names.
std::vector<std::string> write_toy_study(const std::string& dir, const std::vector<ToyRunResult>& results,
                                         const ToyStudyInfo& info);

}  // namespace hm::studies
