// One run of the Decision Transformer study: trains arcade-dt with one head (plan.h) through
// the Trainer and records the online evaluations (step 0, every trainer.eval_every steps and
// the end), so the report can take the paper's "rollouts at the best epoch" and the last one.
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/tools/studies/decision_transformer/plan.h"

namespace hm::studies {

// {"params": N, "steps": S, "train_seconds": t, "windows_per_second": w,
//  "random_return": r, "expert_return": e,
//  "curve": [{"step", "return_mean", "normalized_return_mean", "normalized_return_std", "val_smoothness",
//             "val_loss", "val_accuracy"}, ...],
//  "best": the curve point with the highest normalized_return_mean (after step 0),
//  "final": the last evaluation's metrics (example_pmfs, example_actions, returns, action_histogram too)}
// Throws train::RunInterrupted when Ctrl-C stopped it. With a work_dir (StudyRun::work_dir) the run
// checkpoints there and resumes from it (StudyFit, study_trainer.h).
Json run_decision_transformer(const HeadRunSpec& run, const std::string& work_dir = "");

}  // namespace hm::studies
