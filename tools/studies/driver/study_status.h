// `harmonic study NAME --status [DIR]`: what a study directory holds, without running anything.
#pragma once
#include <cstdio>
#include <string>

#include "harmonic/tools/studies/driver/driver.h"

namespace hm::studies {

// Prints the recorded runs with their training time, the runs in flight (their work
// directory's checkpoint step, its age and the last metrics line), the runs left and an
// estimate of the training left from the recorded runs' seconds per unit of grid cost.
StudyOutcome print_study_status(const StudySpec& spec, const std::string& dir, std::FILE* log);

}  // namespace hm::studies
