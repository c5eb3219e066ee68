// The "fourier-toy" training task: one configuration of the Fourier head toy study (data,
// model, optimizer, batch order, metrics) for the generic Trainer. `harmonic train fourier-toy`
// and every run of `harmonic study fourier-toy` (tools/studies/fourier_toy/run.h) build this
// same task, so a run of the study is reproduced exactly by
//   harmonic train fourier-toy --config <the run's toy_task_config>
#pragma once
#include <cstdint>
#include <memory>

#include "harmonic/data/loader.h"
#include "harmonic/data/toy_density.h"
#include "harmonic/models/fourier_toy.h"
#include "harmonic/optim/adam.h"
#include "harmonic/tools/train/task.h"

namespace hm::studies {

using Json = nlohmann::json;

// What a head trains on: inputs (n, 2) float32 (bin indices as floats; raw x, y for the MLE
// heads) and targets (n): int64 bin of z (classification heads), float32 centre of z's bin
// (regression) or float32 raw z (MLE heads).
struct ToyTensors {
  Tensor inputs, targets;
};
ToyTensors toy_tensors(const data::ToyDensitySplit& split, models::ToyHead head);

// Test-set metrics of a trained model on a split and its predicted pmfs (n, bins) float64.
// Classification heads: kl, smoothness, mse (of the expected bin). Regression: mse only. MLE
// heads: kl (true vs predicted density at the bin centres, both normalised), perplexity,
// smoothness. Metrics a head does not have are NaN.
struct ToyMetrics {
  double kl = 0, smoothness = 0, mse = 0, perplexity = 0;
  Tensor pred_pmf;
};
ToyMetrics evaluate_toy_model(models::ToyDensityModel& model, const data::ToyDensitySplit& split);

// The seeds of a run's own generator streams (the data uses the seed itself through
// make_toy_density): parameter initialisation and the per-epoch batch order.
uint64_t toy_init_seed(uint64_t seed);
uint64_t toy_shuffle_seed(uint64_t seed);
// The batch order: epoch e is the e-th randperm(n) drawn from Generator(toy_shuffle_seed(seed))
// (the order the study's runs have always used, so results stay comparable across versions).
data::Sampler toy_sampler(uint64_t seed);

// Config keys (defaults in the registered task): seed, dataset (gaussian|gmm2|beta), head
// (linear|gmm|fourier|regression|gmm-mle|fourier-mle), frequencies, gamma, lr (Adam),
// batch_size, size (triples before the 80/20 split), and the trainer section. The MLE heads
// were trained with a cosine schedule to 1e-6 and gradient clipping at 1 (trainer.lr_schedule,
// trainer.end_lr_factor, trainer.clip_grad_norm).
class FourierToyTask : public train::Task {
 public:
  FourierToyTask(const Json& config, Device device);

  nn::Module& model() override { return *model_; }
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const data::DataLoader& train_loader() override { return *loader_; }
  Tensor loss(const data::Batch& b) override { return model_->loss(b.input, b.target); }
  // kl, smoothness, mse, perplexity (those the head has) on the test split.
  Json evaluate() override;

  // The training objective's mean on the test split (no grad): the held-out curve.
  double test_loss();
  // The metrics and predicted pmfs of the last evaluate().
  const ToyMetrics& last_metrics() const { return metrics_; }
  const data::ToyDensityDataset& dataset() const { return ds_; }

 private:
  data::ToyDensityDataset ds_;
  std::shared_ptr<models::ToyDensityModel> model_;
  std::unique_ptr<data::DataLoader> loader_;
  std::unique_ptr<optim::Adam> optimizer_;
  ToyTensors test_;
  ToyMetrics metrics_;
};

}  // namespace hm::studies
