// The offline data set of the Decision Transformer study, in the spirit of DQN-replay (the
// paper trains on 500k transitions a DQN agent saw while it learned an Atari game): whole
// episodes of one arcade stand-in game (games.h) played by a mixture of behaviours, from nearly
// random to expert, as a learning agent's replay holds (the game's default_mixture unless
// given). Each episode draws its policy from the mixture (weights), its game seed is
// episode_seed(seed, e); episodes are played until at least `steps` transitions are collected
// (the last episode is kept whole, so size() >= steps).
//
// Sizes: kFullSteps = 500k like the paper (about 10 s to generate Seaquest's here), kQuickSteps
// = 50k. load_or_generate caches the tensors as safetensors (written atomically) in
// cache_dir/<game>_offline_s<seed>_n<steps>_<hash>.safetensors, the hash covering the game, its
// format_version (bumped when its rules change), the mixture and the game's settings, so
// studies reuse one file and a stale one is never read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/arcade/games.h"

namespace hm::arcade {

inline constexpr int64_t kFullSteps = 500000, kQuickSteps = 50000;

struct OfflineDatasetOptions {
  std::string game_name = "seaquest";  // a games.h name
  uint64_t seed = 0;
  int64_t steps = kFullSteps;             // at least this many transitions, whole episodes
  std::vector<MixtureComponent> mixture;  // empty: the game's default_mixture()
  GameConfig game;
  std::string cache_dir;  // "" : data_cache_dir() + "/arcade"
};

struct OfflineDataset {
  Tensor observations;                // (N, the game's observation_size) float32: the state before the action
  Tensor actions;                     // (N,) int64 in paper order
  Tensor rewards;                     // (N,) float32
  Tensor returns_to_go;               // (N,) float32: the rewards from this step to the end of its episode
  Tensor timesteps;                   // (N,) int64: the step's index within its episode (0 at its start)
  Tensor dones;                       // (N,) bool: the last step of its episode
  Tensor episode_starts;              // (E,) int64: index of each episode's first step
  Tensor episode_returns;             // (E,) float32
  Tensor episode_policies;            // (E,) int64: index into policies
  std::vector<std::string> policies;  // the mixture's specs
  std::string game = "seaquest";      // the game played (a games.h name)

  int64_t size() const { return actions.numel(); }
  int64_t episodes() const { return episode_starts.numel(); }
};

// Suffix sums of rewards within each episode: rtg[t] = rewards[t] + rtg[t + 1] unless dones[t].
// rewards (N,) float32, dones (N,) bool with dones[N - 1] true (throws otherwise) -> (N,) float32,
// accumulated in double.
Tensor compute_returns_to_go(const Tensor& rewards, const Tensor& dones);

OfflineDataset generate_offline_dataset(const OfflineDatasetOptions& options);
std::string offline_dataset_path(const OfflineDatasetOptions& options);
// The cached file when it exists (its metadata must match options, else hm::Error), else
// generates and writes it.
OfflineDataset load_or_generate_offline_dataset(const OfflineDatasetOptions& options);

// Writes the game's name in the metadata "game" (besides `metadata`).
void save_offline_dataset(const OfflineDataset& data, const std::string& path,
                          const std::map<std::string, std::string>& metadata = {});
// Checks the tensors' shapes and dtypes agree with each other and with the game's observation
// size (metadata "game"; a file without it is Seaquest's), naming the file.
OfflineDataset load_offline_dataset(const std::string& path);

// The metadata that identifies a data set generated with these options.
std::map<std::string, std::string> offline_dataset_metadata(const OfflineDatasetOptions& options);
// options.mixture, or the game's default_mixture() when it is empty.
std::vector<MixtureComponent> offline_dataset_mixture(const OfflineDatasetOptions& options);

}  // namespace hm::arcade
