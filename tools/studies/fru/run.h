// One run of the FRU study: trains a model of the grid (plan.h) on its task with the Trainer
// and records what the report needs: the test metric after every epoch (and before the first,
// epoch 0), the mean training loss of each epoch, the parameter counts, and for the Figure 5
// runs the gradient over time (tools/train/grad_over_time.h) at the chosen epochs.
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/tools/studies/fru/plan.h"

namespace hm::studies {

// The run's result:
//   {"params": N, "embedding_params": E (0 but for text: the word embedding, which the
//    paper's Table 3 does not count), "steps": S, "epochs": E,
//    "curve": [{"epoch": 0, "test_mse" | "test_accuracy": v, "test_loss"?: v}, ...],
//    "train_loss": [mean over epoch 1, 2, ...],
//    "final": the last evaluation's metrics,
//    "grad_flow": [{"epoch": e, ...train::to_json(GradOverTime)}, ...] (Figure 5 runs only)}
// Throws train::RunInterrupted when Ctrl-C stopped it. With a work_dir (StudyRun::work_dir) the run
// checkpoints there and resumes from it (StudyFit, study_trainer.h).
Json run_fru(const FruRunSpec& run, const std::string& work_dir = "");

}  // namespace hm::studies
