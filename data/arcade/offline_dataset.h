// The offline data set of the Decision Transformer study, in the spirit of DQN-replay (the
// paper trains on 500k transitions a DQN agent saw while it learned Seaquest): whole episodes
// of the Seaquest stand-in played by a mixture of behaviours, from nearly random to expert, as
// a learning agent's replay holds. Each episode draws its policy from the mixture (weights),
// its game seed is episode_seed(seed, e); episodes are played until at least `steps`
// transitions are collected (the last episode is kept whole, so size() >= steps).
//
// Sizes: kFullSteps = 500k like the paper (about 10 s to generate here), kQuickSteps = 50k.
// load_or_generate caches the tensors as safetensors (written atomically) in
// cache_dir/seaquest_offline_s<seed>_n<steps>_<hash>.safetensors, the hash covering the mixture,
// the game's settings and kFormatVersion (bumped when the game's rules change), so studies
// reuse one file and a stale one is never read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/arcade/seaquest_env.h"

namespace hm::arcade {

inline constexpr int64_t kFullSteps = 500000, kQuickSteps = 50000;
inline constexpr int kFormatVersion = 1;

struct MixtureComponent {
  std::string policy;  // a make_policy spec
  double weight = 1;   // relative frequency of its episodes
};

// Episode weights: random 0.15, expert:0.75 0.20, expert:0.5 0.20, careless:0.25 0.15,
// expert:0.25 0.10, expert:0.1 0.12, expert:0.03 0.08. Better policies play longer episodes
// (up to the step cap), so the weights are chosen for shares of the *steps* of about 2%, 8%,
// 15%, 15%, 20%, 25%, 15%: returns from 0 to the expert's, mostly from mediocre play, like the
// replay of an agent that is still learning.
std::vector<MixtureComponent> default_mixture();

struct OfflineDatasetOptions {
  uint64_t seed = 0;
  int64_t steps = kFullSteps;  // at least this many transitions, whole episodes
  std::vector<MixtureComponent> mixture = default_mixture();
  SeaquestConfig game;
  std::string cache_dir;  // "" : data_cache_dir() + "/arcade"
};

struct OfflineDataset {
  Tensor observations;                // (N, SeaquestEnv::kObservationSize) float32: the state before the action
  Tensor actions;                     // (N,) int64 in paper order
  Tensor rewards;                     // (N,) float32
  Tensor returns_to_go;               // (N,) float32: the rewards from this step to the end of its episode
  Tensor timesteps;                   // (N,) int64: the step's index within its episode (0 at its start)
  Tensor dones;                       // (N,) bool: the last step of its episode
  Tensor episode_starts;              // (E,) int64: index of each episode's first step
  Tensor episode_returns;             // (E,) float32
  Tensor episode_policies;            // (E,) int64: index into policies
  std::vector<std::string> policies;  // the mixture's specs

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

void save_offline_dataset(const OfflineDataset& data, const std::string& path,
                          const std::map<std::string, std::string>& metadata = {});
// Checks the tensors' shapes and dtypes agree with each other, naming the file.
OfflineDataset load_offline_dataset(const std::string& path);

// The metadata that identifies a data set generated with these options.
std::map<std::string, std::string> offline_dataset_metadata(const OfflineDatasetOptions& options);

}  // namespace hm::arcade
