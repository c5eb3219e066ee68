// Task "arcade-dt": the Fourier head paper's Decision Transformer study (section 5, Appendix
// D.1) on an arcade stand-in game (data/arcade; Seaquest unless `game` says another): a minGPT
// Decision Transformer
// (models/decision_transformer.h) trained offline on trajectories of a behaviour mixture
// (data/arcade/offline_dataset.h, windows of dt_windows.h) with a linear or Fourier action
// head, evaluated online by playing the game conditioned on a target return.
//
//   build/harmonic train arcade-dt --out runs/dt --set head=fourier --set fourier_frequencies=8
//
// Config keys (flat): seed; game (a data/arcade/games.h name, "seaquest" when absent: the
// model's state_dim is its observation size); data: dataset_steps, dataset_seed, val_steps (a second, held-out
// data set of the same mixture: validation loss, action accuracy and pmf smoothness);
// model: context_length, n_layer, n_head, n_embd, dropout, head ("linear" | "fourier"),
// fourier_frequencies, fourier_gamma; optimiser (AdamW, minGPT's: decay on matrices and
// embeddings only): lr, beta1, beta2, weight_decay, batch_size; the return-to-go the model sees
// is rtg / rtg_scale; evaluation: eval_episodes, eval_seed, target_return (0: the best episode
// return of the training data), reference_episodes (random and expert episodes that define the
// normalised return); and the trainer section (paper: clip 1.0, warmup + cosine).
//
// Metrics: validate() -> {"loss", "accuracy", "smoothness"} on the held-out data set's windows
// (smoothness: the mean Definition 3.2 smoothness of the predicted action pmfs at each
// window's last step). evaluate() -> {"return_mean", "return_std", "normalized_return_mean",
// "normalized_return_std" (100 (R - random) / (expert - random) per episode), "random_return",
// "expert_return", "target_return", "example_pmfs" (the pmfs of 4 fixed held-out
// windows, for the Figure 13-style plots), "action_histogram" (the actions the agent took)}.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>

#include "harmonic/core/device.h"
#include "harmonic/core/random.h"
#include "harmonic/data/arcade/dt_windows.h"
#include "harmonic/data/arcade/games.h"
#include "harmonic/data/arcade/policy.h"
#include "harmonic/models/decision_transformer.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/task.h"

namespace hm::train {

inline constexpr const char* kArcadeDtTask = "arcade-dt";

Json arcade_dt_defaults();
// The model of a config (keys checked, errors name them).
models::DecisionTransformerConfig arcade_dt_model_config(const Json& config);

// The game of a config: its `game` key ("seaquest" when absent); an unknown name throws naming
// the known games.
const arcade::GameInfo& arcade_dt_game(const Json& config);

// arcade::reference_returns of `game` over `episodes` games seeded 1_000_003 (no training,
// validation or evaluation game), memoised per game and settings per process (every run of a
// study needs the same two numbers).
arcade::ReferenceReturns arcade_reference_returns(const std::string& game, int64_t episodes,
                                                  const arcade::GameConfig& config);

class ArcadeDtTask : public Task {
 public:
  ArcadeDtTask(const Json& config, Device device);

  nn::Module& model() override { return *dt_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& batch) override;
  Json validate() override;
  Json evaluate() override;
  optim::NamedGenerators generators() override { return {{"dropout", &gen_}}; }

  models::DecisionTransformer& dt() { return *dt_; }
  const arcade::OfflineDataset& train_data() const { return *train_data_; }

 private:
  // Scores (B, K, A) of an unpacked batch (rtg scaled, window start timesteps, mask).
  Tensor scores(const arcade::DecisionTransformerBatch& b);

  Json config_;
  Device device_;
  Generator gen_;
  double rtg_scale_ = 1.0;
  int64_t batch_size_ = 1;
  std::shared_ptr<const arcade::OfflineDataset> train_data_, val_data_;
  std::shared_ptr<arcade::DecisionTransformerWindows> train_windows_, val_windows_;
  std::shared_ptr<models::DecisionTransformer> dt_;
  std::unique_ptr<optim::AdamW> optimizer_;
  std::unique_ptr<data::DataLoader> loader_;
};

}  // namespace hm::train
