// The Chronos study's aggregates and report: runs grouped by (head, size) over seeds, Table 3
// and Table 8 beside ours (our held-out generated series against the paper's 20 public data
// sets: the levels are not comparable, the orderings are what the claims check), Figure 19's
// MASE against model size, the claims of section 6 on the means and seed by seed, summary.json
// and summary.md. Figures: figures.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/chronos/plan.h"
#include "harmonic/tools/studies/driver/recorded_run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using ChronosRun = RecordedRun<ChronosRunSpec>;
// The study's records as runs; throws naming the run whose config or result is malformed.
std::vector<ChronosRun> chronos_runs_of(const std::vector<RunRecord>& records);

// One head at one size over its seeds. MASE and WQL are relative to seasonal naive (geometric
// mean over the held-out series of model / naive; < 1 beats it) with season 1 ("mase") and
// with each series' own kernel period ("mase_period").
struct ChronosGroup {
  ChronosHeadSpec head;
  ChronosSize size;
  double data_fraction = 1.0;  // < 1: Figure 18's smaller training sets (data_sizes.h)
  std::vector<uint64_t> seeds;
  Json task_config;  // the first seed's
  int64_t params = 0;
  report::MetricStats mase, wql, mase_period, wql_period, smoothness, test_loss;
  report::MetricStats seconds, tokens_per_second;
  // The held-out evaluations during training (run.h's curve) at the steps every seed has.
  struct CurvePoint {
    int64_t step = 0;
    report::MetricStats test_loss, mase;
  };
  std::vector<CurvePoint> curve;
  Json example_pmfs = Json::array();  // the first seed's (run.h)
  Json example_forecast;              // the first seed's
};

std::vector<ChronosGroup> aggregate_chronos_runs(const std::vector<ChronosRun>& runs);
// The groups trained on all of the mode's series: Tables 3 and 8, Figures 17 and 19.
std::vector<ChronosGroup> chronos_full_data_groups(const std::vector<ChronosGroup>& groups);
const ChronosGroup* find_chronos_group(const std::vector<ChronosGroup>& groups, const std::string& head,
                                       const std::string& size);
// The size with the most runs (the rows' size), and the largest plain Fourier N at it (0: none).
std::string chronos_main_size_of(const std::vector<ChronosGroup>& groups);
int64_t chronos_main_frequencies(const std::vector<ChronosGroup>& groups, const std::string& size);

// Table 8's row for a head name ("linear", "fourier-64", ..., "fourier-550-uniform"):
// MASE, WQL (single numbers) and smoothness (mean ± std over the benchmark's pmfs).
struct ChronosPaperRow {
  double mase = 0, wql = 0;
  report::PaperValue smoothness;
};
std::optional<ChronosPaperRow> paper_chronos_row(const std::string& head);

// At the main size: every Fourier head smoother than linear (Table 8; the factor in the
// claim) and with a lower MASE; the main Fourier head's WQL below linear's (Table 3); fewer
// frequencies smoother and more frequencies a lower MASE (64 against the main N); mixed
// binning and regularisation lowering the main head's MASE (Table 8's ablations); linear and
// the main head beating seasonal naive; at every other size the main head's MASE below
// linear's (Figure 19); then Figure 18's (data_sizes.h). Claims whose groups did not run are
// left out.
std::vector<report::ClaimResult> chronos_claims(const std::vector<ChronosGroup>& groups);

Json chronos_summary_json(const std::vector<ChronosGroup>& groups, const StudyInfo& info);
std::string chronos_summary_markdown(const std::vector<ChronosGroup>& groups, const StudyInfo& info);

StudyReport write_chronos_study(const std::string& dir, const std::vector<ChronosRun>& runs, const StudyInfo& info);

}  // namespace hm::studies
