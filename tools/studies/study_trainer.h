// What every study run does with its Trainer: run quietly under the study driver and turn an
// interrupted fit into train::RunInterrupted, so the driver records nothing for that run and
// runs it again on --resume.
#pragma once
#include "tools/train/run_pool.h"
#include "tools/train/trainer.h"

namespace hm::studies {

// No log lines (the driver prints one per run), no SIGINT handler (the driver owns Ctrl-C and
// stops the runs in flight), gradient norms only when a run needs them (clipping, a metric).
inline void quiet_study_trainer(train::Trainer& trainer, bool measure_grad_norm = false) {
  trainer.log = nullptr;
  trainer.handle_sigint = false;
  trainer.measure_grad_norm = measure_grad_norm;
}

// trainer.fit(); throws train::RunInterrupted when the fit was stopped.
inline train::FitResult fit_or_interrupt(train::Trainer& trainer) {
  train::FitResult fit = trainer.fit();
  if (fit.interrupted) throw train::RunInterrupted{};
  return fit;
}

}  // namespace hm::studies
