// The Decision Transformer study's aggregates and report: runs grouped by head over seeds,
// Table 2's Seaquest row beside ours (a Seaquest-like game of our own and a behaviour mixture
// for DQN-replay: the levels are not comparable, the ordering is what the claims check),
// Figure 4's returns and smoothness against the number of frequencies, the claims of section
// 5 on the means and seed by seed, summary.json and summary.md. Figures: figures.h.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/decision_transformer/plan.h"
#include "harmonic/tools/studies/driver/recorded_run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using DtRun = RecordedRun<HeadRunSpec>;
// The study's records as runs; throws naming the run whose config or result is malformed.
std::vector<DtRun> dt_runs_of(const std::vector<RunRecord>& records);

// One head over its seeds. Normalised returns are 100 (R - random) / (expert - random) per
// episode, averaged over the run's episodes; `best` is the best evaluation of a run (the
// paper's "rollouts at the best epoch"), `final` the last.
struct DtGroup {
  HeadChoice head;
  std::string ablation;  // "" in the main grid (HeadRunSpec::ablation)
  std::vector<uint64_t> seeds;
  Json task_config;  // the first seed's
  int64_t params = 0;
  report::MetricStats best_normalized, final_normalized, final_return, smoothness, val_accuracy, val_loss;
  report::MetricStats seconds, windows_per_second;
  double random_return = 0, expert_return = 0;    // the reference policies' mean returns (same for every run)
  std::vector<std::vector<double>> example_pmfs;  // the first seed's final pmfs of the probe windows
  std::vector<int64_t> example_actions;           // the data set's actions at those windows
};

// Groups by (ablation, N): the main grid's first, each part by increasing N.
std::vector<DtGroup> aggregate_dt_runs(const std::vector<DtRun>& runs);
// The main grid's groups (Table 2, Figures 4 and 13).
std::vector<DtGroup> dt_main_groups(const std::vector<DtGroup>& groups);

// Fourier (the main N, and the best N of the sweep on the means) above linear in best-epoch
// normalised return (Table 2); the main Fourier head's pmfs smoother than the linear head's
// (Figure 13); the smoothness growing with N (Figure 4: fewer frequencies, smoother); then the
// ablations' claims (ablations.h).
std::vector<report::ClaimResult> dt_claims(const std::vector<DtGroup>& groups, int64_t main_frequencies);

Json dt_summary_json(const std::vector<DtGroup>& groups, const StudyInfo& info, int64_t main_frequencies);
std::string dt_summary_markdown(const std::vector<DtGroup>& groups, const StudyInfo& info, int64_t main_frequencies);

StudyReport write_dt_study(const std::string& dir, const std::vector<DtRun>& runs, const StudyInfo& info,
                           int64_t main_frequencies);

}  // namespace hm::studies
