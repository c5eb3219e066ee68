// `harmonic study NAME --project N`: how long a study's runs would train, from a few measured
// steps. Each selected run of the grid (--only's, else the grid's first) is started as the study
// would start it, on the study's device, and its first training stops after one warm-up step and
// N profiled ones; the run's step count times the measured ms per step is its projected training
// time (evaluations, data set-up and checkpoints not included). Nothing is recorded: the runs
// work in a scratch directory that is removed afterwards. With --set paper_scale=true this prices
// a paper-scale grid on the machine at hand (a GPU's with --set device=cuda).
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/driver.h"

namespace hm::train {
class Trainer;
}

namespace hm::studies {

struct RunProjection {
  std::string label;
  std::string task;                  // what the measured fit trained ("" when no fit ran)
  int64_t measured_steps = 0;        // profiled steps (after one warm-up step)
  double ms_per_step = 0;            // wall time of the profiled steps over their count
  int64_t total_steps = 0;           // the run's optimizer steps (its trainer.steps or epochs)
  double setup_seconds = 0;          // the run's wall time before its measured steps (data, model, warm-up)
  std::string error;                 // the run's hm::Error, if it raised one
  double projected_hours() const { return ms_per_step * static_cast<double>(total_steps) / 3.6e6; }
};

// Measures the selected runs one after the other and prints a table to log.
std::vector<RunProjection> project_study(const StudySpec& spec, const StudyArgs& args, std::FILE* log);

// The hooks every study run's trainer passes through (study_trainer.h). While project_study
// measures a run on this thread, projection_limit sets the trainer's profile and step limit, and
// projection_measure keeps the stopped fit's measurement and returns true (the run then ends).
// Outside a projection both do nothing (false).
void projection_limit(train::Trainer& trainer);
bool projection_measure(const train::Trainer& trainer);

}  // namespace hm::studies
