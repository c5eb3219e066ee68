// The Fourier head paper's audio tempo toy (fourier-head.txt Appendix C.1, Figure 7) as a
// grid of audio-bpm runs (tools/tasks/audio_bpm.h): the linear head against Fourier heads
// with 1 and 2 frequencies (the paper's best model used one, Figure 7 shows two), each over
// seeds, at the scale of the mode. One run: run.h; the report: report.h, figures.h.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harmonic/tools/studies/driver/head_run.h"
#include "harmonic/tools/studies/driver/study.h"

namespace hm::studies {

inline constexpr const char* kBpmStudy = "study audio-bpm";  // names the study in errors

using Json = nlohmann::json;

struct BpmStudyPlan {
  // seeds: empty: {1, 2, 3} quick, {1, 2, 3, 4, 5} full. paper_scale: the Audio Spectrogram
  // Transformer's shape (ViT-base: 12 layers, d 768, 12 heads) on 16 kHz clips with 128 bands and
  // 10 ms hops, trained from scratch (no AudioSet weights here), the full mode's seeds.
  StudyCommon common;
  std::vector<int64_t> frequencies;  // the Fourier heads; empty: {1, 2}
  Json task = Json::object();  // audio-bpm keys merged into every run
};

// The audio-bpm keys of the mode. Quick: the task's defaults (8000 training clips, a 2-layer
// d 64 model, 800 steps of batch 32); full: 32000 clips, 4 layers of d 128, 6000 steps of
// batch 64, evaluated every 1000 steps.
Json bpm_scale(bool quick, bool paper_scale = false);
// Every head on every seed, seed-major (a seed's heads finish together).
std::vector<HeadRunSpec> bpm_study_grid(const BpmStudyPlan& plan);

std::string bpm_run_label(const HeadRunSpec& run);  // "fourier-2 seed=3"
double bpm_run_cost(const HeadRunSpec& run);        // steps x batch x width^2 x depth (relative)

}  // namespace hm::studies
