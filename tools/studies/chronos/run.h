// One run of the Chronos study: trains the chronos task with one head and size (plan.h)
// through the Trainer, records its held-out evaluations, and takes what the figures need from
// the trained model: Figure 17's next-value pmfs and a forecast fan on held-out series. The
// model is saved under the study directory (models/<label>/) for `harmonic forecast`.
#pragma once
#include <nlohmann/json.hpp>

#include "harmonic/tools/studies/chronos/plan.h"

namespace hm::studies {

// {"params": N, "steps": S, "train_seconds": t, "tokens_per_second": label tokens / s,
//  "curve": [{"step", "test_loss", "test_mase", "test_wql", "test_smoothness"}, ...],
//  "final": the last evaluation's metrics (test_loss, test_smoothness, test_mase, test_wql,
//           test_mase_period, test_wql_period, ...),
//  "example_pmfs": [{"value": [scaled bin centres], "density": [pmf / bin width], "truth": x}, ...],
//  "example_forecast": {"history", "truth", "median", "q10", "q90", "season"},
//  "model_dir": the saved model (relative to the study directory; "" without one)}
// Throws train::RunInterrupted when Ctrl-C stopped it. With a work_dir (StudyRun::work_dir) the run
// checkpoints there and resumes from it (StudyFit, study_trainer.h).
Json run_chronos(const ChronosRunSpec& run, const std::string& study_dir, const std::string& work_dir = "");

// The part of a pmf over bins that holds its bulk: the bins from the 5% to the 95% quantile,
// widened by that span on each side, at most 600 bins around the median bin, as
// {"value": centres[i], "density": pmf[i] / width[i]}; widths from the centres' midpoints.
Json crop_pmf(const std::vector<double>& pmf, const std::vector<double>& centres);

}  // namespace hm::studies
