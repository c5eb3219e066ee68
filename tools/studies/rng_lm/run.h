// One run of the RNG-LM study: make sure the study's base model exists (pretraining it the
// first time), then fine-tune (token or Fourier head, through the Trainer) or not (base), and
// sample each distribution's numbers and score them (tools/tasks/rng_lm_metrics.h).
//
// The base model is pretrained once per study directory, DIR/base_model (a saved language
// model) with DIR/base_model.json (its pretraining measurements). Runs execute in parallel
// on the driver's thread pool, so the first run to get there pretrains while holding an
// exclusive flock on DIR/base_model.lock, and every other run waits on the lock and then
// loads the saved model. A base model made with another pretraining config is refused. The
// pretraining checkpoints into DIR/pretrain and resumes from there after an interruption
// (base_model.json's "seconds" is then the last session's).
#pragma once
#include <string>

#include "harmonic/core/device.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

// Pretrains (or finds) the base model of a kjv-lm config under study_dir, pretraining on
// `device`; returns its directory.
std::string ensure_rng_base_model(const std::string& study_dir, const Json& pretrain, Device device = Device::cpu());
// The run's result: {"model", "seed", "train": {...} or null, "distributions": [{"mu", "sigma",
// "prompt", "tvd_paper", "tvd_l1", "unique", "invalid", "samples", "histogram", "truth"}],
// "tvd_paper", "tvd_l1", "unique", "invalid" (means over the four)}. With a work_dir
// (StudyRun::work_dir) the fine-tuning checkpoints there and resumes from it (StudyFit,
// study_trainer.h).
Json run_rng_lm(const Json& config, const std::string& study_dir, const std::string& work_dir = "");

}  // namespace hm::studies
