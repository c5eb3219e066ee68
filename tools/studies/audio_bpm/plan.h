// The Fourier head paper's audio tempo toy (fourier-head.txt Appendix C.1, Figure 7) as a
// grid of audio-bpm runs (tools/tasks/audio_bpm.h): the linear head against Fourier heads
// with 1 and 2 frequencies (the paper's best model used one, Figure 7 shows two), each over
// seeds, at the scale of the mode. One run: run.h; the report: report.h, figures.h.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hm::studies {

using Json = nlohmann::json;

// A head of the grid: linear (frequencies 0) or Fourier with N frequencies.
struct BpmHead {
  int64_t frequencies = 0;
  bool fourier() const { return frequencies > 0; }
  std::string name() const;                       // "linear", "fourier-2"
  Json task_keys() const;                         // {"head": "fourier", "fourier_frequencies": 2}
  static BpmHead parse(const std::string& name);  // inverse of name(); throws naming it
};

struct BpmStudyPlan {
  bool quick = false;
  std::vector<int64_t> frequencies;  // the Fourier heads; empty: {1, 2}
  std::vector<uint64_t> seeds;       // empty: {1, 2, 3} quick, {1, 2, 3, 4, 5} full
  std::string device = "cpu";
  Json task = Json::object();  // audio-bpm keys merged into every run
};

struct BpmRunSpec {
  BpmHead head;
  uint64_t seed = 1;
  std::string device = "cpu";
  Json task_config;  // overrides of audio-bpm's defaults (scale, head, seed)
};

// The audio-bpm keys of the mode. Quick: the task's defaults (8000 training clips, a 2-layer
// d 64 model, 800 steps of batch 32); full: 32000 clips, 4 layers of d 128, 6000 steps of
// batch 64, evaluated every 1000 steps.
Json bpm_scale(bool quick);
// Every head on every seed, seed-major (a seed's heads finish together).
std::vector<BpmRunSpec> bpm_study_grid(const BpmStudyPlan& plan);

std::string bpm_run_label(const BpmRunSpec& run);  // "fourier-2 seed=3"
double bpm_run_cost(const BpmRunSpec& run);        // steps x batch x width^2 x depth (relative)
Json bpm_run_json(const BpmRunSpec& run);
BpmRunSpec bpm_run_from_json(const Json& j);  // throws naming the missing or malformed key

}  // namespace hm::studies
