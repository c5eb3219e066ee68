// The FRU study's aggregates and report: runs grouped over seeds, the paper's Tables 1-3 and
// the synthetic results beside our numbers (Fashion-MNIST for MNIST, KJV genres for IMDB:
// the levels are not comparable, the orderings are what the claims check), the claims of
// section 6 on the means and seed by seed, summary.json and summary.md. Figures: figures.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/driver/recorded_run.h"
#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fru/plan.h"

namespace hm::studies {

// One finished run: its grid point and run_fru's result.
using FruRun = RecordedRun<FruRunSpec>;
// The study's records as runs; throws naming the run whose config or result is malformed.
std::vector<FruRun> fru_runs_of(const std::vector<RunRecord>& records);

// Figure 5 of one model at one epoch: the window means of the gradient norms, averaged over
// seeds.
struct FruGradCurve {
  int64_t epoch = 0;
  std::vector<double> step;  // each window's mean step ((begin + end - 1) / 2)
  std::vector<double> l1, l2, linf;
};

// One (data set, model) over its seeds.
struct FruGroup {
  FruPart part = FruPart::Synthetic;
  std::string dataset, model;
  std::string freq_range;  // part freq: the FRU's frequency range (FruRunSpec::freq_range)
  std::vector<uint64_t> seeds;
  Json task_config;                 // the first seed's overrides (data sizes, epochs, model keys)
  report::MetricStats metric;       // the final test_mse or test_accuracy
  report::MetricStats seconds;      // wall time of a run
  int64_t params = 0;               // every trained parameter
  int64_t embedding_params = 0;     // of which the word embedding (text)
  report::CurveStats curve;         // the metric against the epoch (0 = untrained)
  report::CurveStats train_loss;    // mean training loss per epoch (1, 2, ...)
  std::vector<FruGradCurve> grads;  // Figure 5, by epoch (runs with measurements)
  // Per seed: the L2 norm of d loss_t / d h0 in the last window over the first window, at
  // the last measured epoch (1: flat; 1e-3: decayed a thousandfold over the sequence).
  report::MetricStats grad_decay;
};

std::vector<FruGroup> aggregate_fru_runs(const std::vector<FruRun>& runs);
// The group of (dataset, model) outside the freq part (its ranges: frequency_ranges.h).
const FruGroup* find_fru_group(const std::vector<FruGroup>& groups, const std::string& dataset,
                               const std::string& model);

// The paper's test accuracy (percent) of a model on "pixel" (Table 1), "permuted" (Table 2) or
// "kjv-genre" (IMDB, Table 3), and its parameter count (Tables 1 and 3, in thousands as
// printed). nullopt where the paper prints none.
std::optional<report::PaperValue> paper_fru_accuracy(const std::string& dataset, const std::string& model);
std::optional<double> paper_fru_kparams(const std::string& dataset, const std::string& model);

// The claims of section 6 that the groups present can check (missing groups are skipped):
// FRU's test MSE at least 10x below each baseline's on every synthetic set; FRU_{60,10} more
// accurate than SRU on pixel and permuted images with fewer parameters; FRU_{60,10} the most
// accurate on permuted; FRU's gradient flat over time (last/first window >= 0.1) and decaying
// less than each baseline's; FRU_{5,10} more accurate than LSTM and SRU on text; then the
// frequency ranges' (frequency_ranges.h).
std::vector<report::ClaimResult> fru_claims(const std::vector<FruGroup>& groups);

// summary.json: groups (stats, curves, Figure 5 windows, paper values), claims, timing.
Json fru_summary_json(const std::vector<FruGroup>& groups, const StudyInfo& info);
// summary.md: the tables beside the paper's, the Figure 5 table, the claims, run times.
std::string fru_summary_markdown(const std::vector<FruGroup>& groups, const StudyInfo& info);

// Writes summary.json, summary.md and the figures into dir; the headline lists the claims.
StudyReport write_fru_study(const std::string& dir, const std::vector<FruRun>& runs, const StudyInfo& info);

}  // namespace hm::studies
