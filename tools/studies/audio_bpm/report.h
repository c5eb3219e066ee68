// The audio tempo study's aggregates and report: runs grouped by head over seeds (test
// accuracy, macro F1, within-one accuracy, pmf smoothness, loss; mean +- std), the paper's
// claim of Appendix C.1 (Fourier F1 above linear: +118% there) and Figure 7's (smoother pmfs)
// checked on the means and seed by seed, summary.json and summary.md. Figures: figures.h.
#pragma once
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/audio_bpm/plan.h"
#include "harmonic/tools/studies/driver/recorded_run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

using BpmRun = RecordedRun<HeadRunSpec>;
// The study's records as runs; throws naming the run whose config or result is malformed.
std::vector<BpmRun> bpm_runs_of(const std::vector<RunRecord>& records);

// One head over its seeds (final evaluation of each run).
struct BpmGroup {
  HeadChoice head;
  std::vector<uint64_t> seeds;
  Json task_config;  // the first seed's
  int64_t params = 0;
  report::MetricStats accuracy, macro_f1, within_one, smoothness, loss, predicted_classes, seconds;
  std::vector<std::vector<double>> example_pmfs;  // the first seed's pmfs of the example test clips
  std::vector<int64_t> example_labels, example_bpm;
};

// Sorted by frequencies (linear first).
std::vector<BpmGroup> aggregate_bpm_runs(const std::vector<BpmRun>& runs);

// For every Fourier head: macro F1 above linear (Appendix C.1), pmfs smoother than linear
// (Figure 7).
std::vector<report::ClaimResult> bpm_claims(const std::vector<BpmGroup>& groups);

Json bpm_summary_json(const std::vector<BpmGroup>& groups, const StudyInfo& info);
std::string bpm_summary_markdown(const std::vector<BpmGroup>& groups, const StudyInfo& info);

StudyReport write_bpm_study(const std::string& dir, const std::vector<BpmRun>& runs, const StudyInfo& info);

}  // namespace hm::studies
