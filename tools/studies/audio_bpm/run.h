// One run of the audio tempo study: trains audio-bpm with one head (plan.h) through the
// Trainer and records the test metrics of every evaluation (trainer.eval_every, and the end).
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/tools/studies/audio_bpm/plan.h"

namespace hm::studies {

// {"params": N, "steps": S, "train_seconds": t, "clips_per_second": c,
//  "curve": [{"step", "loss", "accuracy", "macro_f1", "smoothness"}, ...],
//  "final": the last evaluation's metrics (example_pmfs, example_labels, example_bpm too)}
// Throws train::RunInterrupted when Ctrl-C stopped it. With a work_dir (StudyRun::work_dir) the run
// checkpoints there and resumes from it (StudyFit, study_trainer.h).
Json run_audio_bpm(const HeadRunSpec& run, const std::string& work_dir = "");

}  // namespace hm::studies
