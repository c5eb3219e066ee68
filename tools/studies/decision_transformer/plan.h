// The Fourier head paper's Decision Transformer study (fourier-head.txt section 5, Appendix
// D.1, Table 2 and Figures 4, 13, 14 and 15) as a grid of training runs of the arcade-dt task
// (tools/tasks/arcade_dt.h): the linear head against Fourier heads with N frequencies, each
// over seeds, at the scale of the mode, and the two heads again at other model and data sizes.
// One run: run.h; the report: report.h, ablations.h, figures.h.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/head_run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

inline constexpr const char* kDtStudy = "study decision-transformer";  // names the study in errors

using Json = nlohmann::json;

// The parts of the study: the heads and the frequency sweep at the mode's scale (Table 2, Figures
// 4 and 13), and the linear and main Fourier heads at other model sizes (Figure 14) and data
// set sizes (Figure 15), on the sweep seeds; the ablations reuse the main part's runs as their
// point at the mode's scale.
inline const std::vector<std::string> kDtParts = {"main", "model", "data"};

// A model size of the ablation: depth and width (the heads stay the mode's).
struct DtModelSize {
  int64_t n_layer = 6;
  int64_t n_embd = 128;
};

// The game every run plays (data/arcade/games.h); Seaquest's runs carry no `game` key, as they
// did before the other games, so their configs and records stay as committed.
inline constexpr const char* kDtDefaultGame = "seaquest";
// The second Fourier head every seed runs on the other games in full mode: the paper's best on
// Seaquest (Table 2's Fourier-14), beside the main N.
inline constexpr int64_t kDtGameSecondFrequencies = 14;

struct DtStudyPlan {
  // seeds: linear and the main Fourier head; empty: {1} quick, {1, 2, 3, 4} full. paper_scale:
  // the paper's 500k transitions x 5 epochs, batch 128.
  StudyCommon common;
  std::vector<int64_t> frequencies;     // Fourier heads of the sweep; empty: the mode's
  std::vector<uint64_t> sweep_seeds;    // the other Fourier heads; empty: {1} quick, {1, 2} full
  int64_t main_frequencies = 8;         // the Fourier head run on every seed (Figure 13's N = 8)
  Json task = Json::object();           // arcade-dt keys merged into every run
  std::vector<std::string> parts;       // of kDtParts; empty: main (quick), all three (full)
  std::vector<DtModelSize> model_sizes;  // empty: {1, 32} (quick), {2, 64} and {4, 96} (full)
  std::vector<int64_t> data_sizes;       // transitions; empty: 20000 (quick), 50000 and 100000 (full)
  // The arcade game (a data/arcade/games.h name). Another game than Seaquest adds Fourier-14 to
  // the every-seed heads in full mode and runs the main part only by default (the model and data
  // ablations are Seaquest's Figures 14 and 15).
  std::string game = kDtDefaultGame;
};

// The plan's game checked against data/arcade's list; throws naming the known games.
const std::string& dt_checked_game(const std::string& game);
// The game of a run config: its `game` key, Seaquest where absent.
std::string dt_game_of(const Json& task_config);

// The arcade-dt keys every run gets at the plan's scale.
Json dt_scale(const DtStudyPlan& plan);
// Linear and the main Fourier head (on another game than Seaquest in full mode, Fourier-14 too)
// on every seed, then the other frequencies on the sweep
// seeds (full: every even N from 2 to 32, as the paper's sweep); then the ablations' linear
// and main Fourier runs on the sweep seeds, model sizes before data sizes.
std::vector<HeadRunSpec> dt_study_grid(const DtStudyPlan& plan);

// The ablation names: "model=L2-d64", "data=50000".
std::string dt_model_ablation(const DtModelSize& size);
std::string dt_data_ablation(int64_t transitions);

std::string dt_run_label(const HeadRunSpec& run);  // "fourier-8 seed=2", "linear data=50000 seed=1"
double dt_run_cost(const HeadRunSpec& run);        // steps x batch x context (relative)

}  // namespace hm::studies
