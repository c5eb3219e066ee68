#include "tools/demos/arcade_demo.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "tools/report/plot.h"

namespace hm::demos {

using arcade::SeaquestEnv;

ArcadeDemoResult run_arcade_demo(const ArcadeDemoConfig& config) {
  const arcade::SeaquestConfig game{.max_steps = config.max_steps};
  ArcadeDemoResult r;
  r.episodes = arcade::play_episodes(config.policy, config.episodes, config.seed, game);
  double sum = 0, sq = 0;
  for (const auto& e : r.episodes) sum += e.score;
  r.mean = sum / static_cast<double>(r.episodes.size());
  for (const auto& e : r.episodes) sq += (e.score - r.mean) * (e.score - r.mean);
  r.std = std::sqrt(sq / static_cast<double>(r.episodes.size()));

  if (!config.frames_png.empty()) {
    check(config.frames >= 1, "run_arcade_demo", "frames {} must be >= 1", config.frames);
    // Replays the first episode (the game and the policy are deterministic given the seed)
    // and keeps evenly spaced frames.
    const int length = r.episodes.front().steps;
    const uint64_t seed = arcade::episode_seed(config.seed, 0);
    SeaquestEnv env(game);
    auto policy = arcade::make_policy(config.policy);
    env.reset(seed);
    policy->reset(seed);
    std::vector<std::vector<uint8_t>> frames;
    const int count = std::min(config.frames, length);
    for (int i = 0, step = 0; i < count; ++i) {
      const int at = static_cast<int>(static_cast<int64_t>(i) * length / count);
      for (; step < at; ++step) env.advance(policy->act(env));
      frames.push_back(env.render());
    }
    save_frame_strip(frames, 4, config.frames_png);
  }
  return r;
}

void save_frame_strip(const std::vector<std::vector<uint8_t>>& frames, int scale, const std::string& path) {
  const int fw = SeaquestEnv::kFrameW, fh = SeaquestEnv::kFrameH;
  check(!frames.empty() && scale >= 1, "save_frame_strip", "{} frames at scale {}: need >= 1 of each", frames.size(),
        scale);
  const int n = static_cast<int>(frames.size());
  const int width = n * (fw * scale + 1) - 1, height = fh * scale;
  std::vector<unsigned char> rgb(static_cast<size_t>(width) * height * 3, 255);
  for (int i = 0; i < n; ++i) {
    check(frames[i].size() == static_cast<size_t>(fw) * fh, "save_frame_strip", "frame {} has {} pixels, not {}x{}",
          i, frames[i].size(), fw, fh);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < fw * scale; ++x) {
        const uint8_t v = frames[i][static_cast<size_t>(y / scale) * fw + x / scale];
        unsigned char* p = &rgb[(static_cast<size_t>(y) * width + i * (fw * scale + 1) + x) * 3];
        p[0] = static_cast<unsigned char>(v / 3), p[1] = static_cast<unsigned char>(v * 3 / 4), p[2] = v;  // sea tint
      }
  }
  report::save_png(rgb, width, height, path);
}

}  // namespace hm::demos
