// `harmonic demo arcade`: plays the Seaquest stand-in (data/arcade) with a policy, reports the
// returns, and can draw the first episode as a strip of frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harmonic/data/arcade/offline_dataset.h"
#include "harmonic/data/arcade/policies.h"

namespace hm::demos {

struct ArcadeDemoConfig {
  std::string policy = "expert";  // a make_policy spec
  int episodes = 10;
  uint64_t seed = 0;
  int max_steps = 1000;
  std::string frames_png;  // "" : no picture; else a strip of the first episode's frames
  int frames = 12;         // frames in the strip, evenly spaced over the episode
};

struct ArcadeDemoResult {
  std::vector<arcade::EpisodeSummary> episodes;
  double mean = 0, std = 0;  // of the scores (population std)
};

ArcadeDemoResult run_arcade_demo(const ArcadeDemoConfig& config);

// One row per mixture component of an offline data set: its episodes, steps and returns.
struct DatasetPolicyRow {
  std::string policy;
  int64_t episodes = 0, steps = 0;
  double mean_return = 0, std_return = 0;
};
std::vector<DatasetPolicyRow> summarize_dataset(const arcade::OfflineDataset& data);

// The frames (each SeaquestEnv::kFrameH x kFrameW grayscale) side by side, scaled `scale`
// times, with a 1-pixel gap, as an RGB PNG written atomically.
void save_frame_strip(const std::vector<std::vector<uint8_t>>& frames, int scale, const std::string& path);

}  // namespace hm::demos
