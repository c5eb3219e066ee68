// One run of the FourierFormer study: trains a variant of the grid (plan.h) on kjv-lm or
// fashion-vit with the Trainer and records what the report needs: the held-out metrics at
// every evaluation (step 0 included), the mean training loss between evaluations, the
// training throughput, and a divergence (a NaN or infinite loss: the paper's odd p) as a
// result rather than a failure. The main language models are kept under DIR/models/.
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/tools/studies/fourierformer/plan.h"

namespace hm::studies {

// The run's result:
//   {"params": N, "steps": S (done), "train_seconds": t, "items_per_second": tokens or images,
//    "curve": [{"step": 0, ...every evaluation metric (val_ppl, test_ppl, test_accuracy, ...)}, ...],
//    "train_loss": [{"step": s, "loss": mean since the previous point}, ...],
//    "final": the last evaluation's metrics (null values after a divergence),
//    "diverged": null | {"step": s, "loss": the non-finite loss as a string},
//    "model_dir": "models/<name>", the saved model relative to the study directory (save_model
//    runs that did not diverge)}
// `study_dir` is where save_model runs write DIR/models/<ff_model_dir_name(run)>/.
// Throws train::RunInterrupted when Ctrl-C stopped it. With a work_dir (StudyRun::work_dir) the run
// checkpoints there and resumes from it (StudyFit, study_trainer.h).
Json run_fourierformer(const FfRunSpec& run, const std::string& study_dir, const std::string& work_dir = "");

}  // namespace hm::studies
