// The Fourier head paper's Decision Transformer study (fourier-head.txt section 5, Appendix
// D.1, Table 2 and Figures 4 and 13) as a grid of training runs of the arcade-dt task
// (tools/tasks/arcade_dt.h): the linear head against Fourier heads with N frequencies, each
// over seeds, at the scale of the mode. One run: run.h; the report: report.h, figures.h.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/head_run.h"

namespace hm::studies {

inline constexpr const char* kDtStudy = "study decision-transformer";  // names the study in errors

using Json = nlohmann::json;

struct DtStudyPlan {
  bool quick = false;
  bool paper_scale = false;             // the paper's 500k transitions x 5 epochs, batch 128 (a GPU's job)
  std::vector<int64_t> frequencies;     // Fourier heads of the sweep; empty: the mode's
  std::vector<uint64_t> seeds;          // linear and the main Fourier head; empty: {1} quick, {1, 2, 3, 4} full
  std::vector<uint64_t> sweep_seeds;    // the other Fourier heads; empty: {1} quick, {1, 2} full
  int64_t main_frequencies = 8;         // the Fourier head run on every seed (Figure 13's N = 8)
  std::string device = "cpu";
  Json task = Json::object();           // arcade-dt keys merged into every run
};

// The arcade-dt keys every run gets at the plan's scale.
Json dt_scale(const DtStudyPlan& plan);
// Linear and the main Fourier head on every seed, then the other frequencies on the sweep
// seeds; seed-major within each part.
std::vector<HeadRunSpec> dt_study_grid(const DtStudyPlan& plan);

std::string dt_run_label(const HeadRunSpec& run);  // "fourier-8 seed=2"
double dt_run_cost(const HeadRunSpec& run);        // steps x batch x context (relative)

}  // namespace hm::studies
