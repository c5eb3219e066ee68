// The FourierFormer study's aggregates and report: runs grouped by (task, variant) over seeds,
// the paper's Tables 1-5 beside our numbers (KJV word-level perplexity for WikiText-103,
// Fashion-MNIST top-1 for ImageNet: the levels are not comparable, the orderings are what
// the claims check), the claims of section 4 and Appendix D on the means and seed by seed,
// summary.json and summary.md. Figures: figures.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/report/claims.h"
#include "harmonic/tools/report/paper.h"
#include "harmonic/tools/report/stats.h"
#include "harmonic/tools/studies/driver/recorded_run.h"
#include "harmonic/tools/studies/driver/study.h"
#include "harmonic/tools/studies/fourierformer/plan.h"

namespace hm::studies {

// One finished run: its grid point and run_fourierformer's result.
using FfRun = RecordedRun<FfRunSpec>;
// The study's records as runs; throws naming the run whose config or result is malformed.
std::vector<FfRun> ff_runs_of(const std::vector<RunRecord>& records);

// One (task, variant) over its seeds. Final metrics of diverged runs are NaN, so a group with
// a diverged seed shows nan (and `diverged` says how many).
struct FfGroup {
  FfTask task = FfTask::Lm;
  FfVariant variant;
  std::vector<uint64_t> seeds;
  Json task_config;  // the first seed's (model size, steps)
  int64_t params = 0;
  size_t diverged = 0;                  // seeds whose loss became NaN or infinite
  std::vector<int64_t> diverged_steps;  // the step each diverged at
  // Language model: validation and test perplexity, Table 3's head distances (per seed, the
  // mean over layers; and the std over layers, averaged over seeds), the learned R.
  report::MetricStats val_ppl, test_ppl, untrained_val_ppl;
  report::MetricStats test_heads, train_heads, test_heads_layer_std, train_heads_layer_std;
  report::MetricStats r_final;
  // Vision transformer: top-1 and top-5 test accuracy (fractions).
  report::MetricStats top1, top5;
  report::MetricStats seconds, items_per_second;  // wall time of a run; tokens (LM) or images per second
  report::CurveStats curve;                       // val_ppl (LM) or test_accuracy (ViT) against the step
  report::CurveStats train_loss;                  // mean training loss between evaluations
  report::CurveStats r_curve;                     // the mean R over layers against the step (Fourier LM)
  // Each layer's R against the step and at the end (runs that recorded r_layer0, r_layer1, ...).
  std::vector<report::CurveStats> r_layer_curves;
  std::vector<report::MetricStats> r_layer_final;
};

std::vector<FfGroup> aggregate_ff_runs(const std::vector<FfRun>& runs);
const FfGroup* find_ff_group(const std::vector<FfGroup>& groups, FfTask task, const std::string& variant);

// The paper's validation / test perplexity of a language-model variant (Tables 1, 4, 5; the
// small model), top-1 / top-5 of a vision variant (Table 2), head distances (Table 3).
struct FfPaperRow {
  std::optional<report::PaperValue> val, test;  // perplexity, or top-1 and top-5 (percent)
  bool diverged = false;                        // "not converge" (Table 4, odd p)
};
FfPaperRow paper_ff_row(FfTask task, const FfVariant& variant);
// Table 3's layer-average mean ± std of the head distances, on "train" or "test".
std::optional<report::PaperValue> paper_ff_heads(const FfVariant& variant, const std::string& split);

// A run that diverged, or whose final validation perplexity is above kNotConvergedRatio times
// the p = 4 run's of the same seed, did "not converge" (the paper's Table 4 wording).
inline constexpr double kNotConvergedRatio = 1.5;

// The claims the groups present can check (missing groups are skipped): Fourier below softmax
// in validation and test perplexity (Table 1); odd p not converging, x^4 below x^2 and x^6
// below x^4 (Table 4); R_init 2 below 0.1 and 4, the R vector below the scalar (Table 5);
// Fourier heads farther apart than softmax heads on train and test windows (Table 3);
// Fourier ViT more accurate than softmax (Table 2); with R learned at its own lr (learned_r),
// Fourier below softmax and below the main Fourier run on validation perplexity.
// R_init 0.5 (ours, small and medium) was picked as the R ablation's best on validation, against a
// softmax with no comparable tuning: "selected: best of 6 R_init on validation, softmax untuned"
// for those rows, "" for every other.
std::string ff_selected_note(const std::vector<FfGroup>& groups, const FfVariant& variant);
std::vector<report::ClaimResult> ff_claims(const std::vector<FfGroup>& groups);

Json ff_summary_json(const std::vector<FfGroup>& groups, const StudyInfo& info);
std::string ff_summary_markdown(const std::vector<FfGroup>& groups, const StudyInfo& info);

// Writes summary.json, summary.md and the figures into dir; the headline lists the claims.
StudyReport write_ff_study(const std::string& dir, const std::vector<FfRun>& runs, const StudyInfo& info);

}  // namespace hm::studies
