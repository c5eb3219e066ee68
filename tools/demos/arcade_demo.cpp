#include "harmonic/tools/demos/arcade_demo.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/tools/report/plot.h"

namespace hm::demos {

ArcadeDemoResult run_arcade_demo(const ArcadeDemoConfig& config) {
  const arcade::GameConfig game{.max_steps = config.max_steps};
  ArcadeDemoResult r;
  r.episodes = arcade::play_episodes(config.game, config.policy, config.episodes, config.seed, game);
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
    std::unique_ptr<arcade::Game> env = arcade::make_game(config.game, game);
    auto policy = arcade::make_policy(config.game, config.policy);
    env->reset(seed);
    policy->reset(seed);
    std::vector<std::vector<uint8_t>> frames;
    const int count = std::min(config.frames, length);
    for (int i = 0, step = 0; i < count; ++i) {
      const int at = static_cast<int>(static_cast<int64_t>(i) * length / count);
      for (; step < at; ++step) env->advance(policy->act(*env));
      frames.push_back(env->render());
    }
    save_frame_strip(
        frames, {.width = env->frame_width(), .height = env->frame_height(), .sea_tint = env->name() == "seaquest"},
        config.frames_png);
  }
  return r;
}

std::vector<DatasetPolicyRow> summarize_dataset(const arcade::OfflineDataset& data) {
  std::vector<DatasetPolicyRow> rows(data.policies.size());
  std::vector<double> sq(rows.size(), 0);
  const std::vector<double> starts = data.episode_starts.to_vector(), returns = data.episode_returns.to_vector(),
                            which = data.episode_policies.to_vector();
  for (size_t i = 0; i < rows.size(); ++i) rows[i].policy = data.policies[i];
  for (size_t e = 0; e < starts.size(); ++e) {
    DatasetPolicyRow& row = rows.at(static_cast<size_t>(which[e]));
    const double end = e + 1 < starts.size() ? starts[e + 1] : static_cast<double>(data.size());
    row.episodes += 1;
    row.steps += static_cast<int64_t>(end - starts[e]);
    row.mean_return += returns[e];
  }
  for (auto& row : rows) row.mean_return /= std::max<int64_t>(1, row.episodes);
  for (size_t e = 0; e < starts.size(); ++e) {
    const size_t i = static_cast<size_t>(which[e]);
    sq[i] += (returns[e] - rows[i].mean_return) * (returns[e] - rows[i].mean_return);
  }
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i].std_return = std::sqrt(sq[i] / std::max<int64_t>(1, rows[i].episodes));
  return rows;
}

void save_frame_strip(const std::vector<std::vector<uint8_t>>& frames, const FrameStripOptions& options,
                      const std::string& path) {
  const int fw = options.width, fh = options.height, scale = options.scale;
  check(!frames.empty() && scale >= 1 && fw >= 1 && fh >= 1, "save_frame_strip",
        "{} frames of {}x{} at scale {}: need >= 1 of each", frames.size(), fw, fh, scale);
  const int n = static_cast<int>(frames.size());
  const int width = n * (fw * scale + 1) - 1, height = fh * scale;
  std::vector<unsigned char> rgb(static_cast<size_t>(width) * height * 3, 255);
  for (int i = 0; i < n; ++i) {
    check(frames[i].size() == static_cast<size_t>(fw) * fh, "save_frame_strip", "frame {} has {} pixels, not {}x{}", i,
          frames[i].size(), fw, fh);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < fw * scale; ++x) {
        const uint8_t v = frames[i][static_cast<size_t>(y / scale) * fw + x / scale];
        unsigned char* p = &rgb[(static_cast<size_t>(y) * width + i * (fw * scale + 1) + x) * 3];
        if (!options.sea_tint) {
          p[0] = p[1] = p[2] = v;
          continue;
        }
        // Sea tint, with the player's submarine in yellow and its torpedo in white.
        const bool sub = v == 255, torpedo = v == 240;
        p[0] = sub || torpedo ? 255 : static_cast<unsigned char>(v / 3);
        p[1] = sub ? 220 : torpedo ? 255 : static_cast<unsigned char>(v * 3 / 4);
        p[2] = sub ? 60 : v;
      }
  }
  report::save_png(rgb, width, height, path);
}

}  // namespace hm::demos
