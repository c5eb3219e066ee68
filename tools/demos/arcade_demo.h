// `harmonic demo arcade`: plays an arcade stand-in game (data/arcade; Seaquest by default) with
// a policy, reports the returns, and can draw the first episode as a strip of frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harmonic/data/arcade/offline_dataset.h"
#include "harmonic/data/arcade/policy.h"

namespace hm::demos {

struct ArcadeDemoConfig {
  std::string game = "seaquest";  // a games.h name
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

// The frames (each height x width grayscale, row-major) side by side, scaled `scale` times,
// with a 1-pixel gap, as an RGB PNG written atomically. sea_tint: Seaquest's colours (water
// blue-green, the player's submarine yellow, its torpedo white); else gray.
struct FrameStripOptions {
  int width = 0, height = 0;
  int scale = 4;
  bool sea_tint = false;
};
void save_frame_strip(const std::vector<std::vector<uint8_t>>& frames, const FrameStripOptions& options,
                      const std::string& path);

}  // namespace hm::demos
