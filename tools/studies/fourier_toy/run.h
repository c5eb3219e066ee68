// One run of the Fourier head toy study: a (dataset, head, frequencies, gamma, seed)
// configuration trained by the generic Trainer on the "fourier-toy" task
// (tools/tasks/fourier_toy.h) and evaluated on the test split.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/data/toy_density.h"
#include "harmonic/models/fourier_toy.h"
#include "harmonic/tools/tasks/fourier_toy.h"

namespace hm::studies {

// The two Fourier heads (the classification head and its maximum-likelihood variant).
inline bool is_fourier(models::ToyHead head) { return head == models::ToyHead::Fourier || head == models::ToyHead::FourierMLE; }

struct ToyRunConfig {
  data::ToyDistribution dataset = data::ToyDistribution::Gaussian;
  models::ToyHead head = models::ToyHead::Fourier;
  int64_t frequencies = 12;  // Fourier heads only
  double gamma = 0.0;        // Fourier heads only: regulariser weight
  uint64_t seed = 1;         // data, initialisation and batch order
  int64_t epochs = 500;
  int64_t batch_size = 32;
  double lr = 1e-3;                           // Adam
  double clip_norm = 1.0;                     // MLE variants only (global gradient norm)
  int64_t sample_points = 0;                  // keep this many test points' pmfs for plots
  data::ToyDensityOptions data_options = {};  // dataset size, bins, ... (tests shrink the size)
  std::string device = "cpu";                 // where the model trains ("cuda" with a GPU)
};

// How often the held-out (test) loss is measured along training.
constexpr int64_t kToyTestLossEvery = 25;  // epochs

struct ToyRunResult {
  ToyRunConfig config;
  // Test-set metrics (ToyMetrics); those a head does not have are NaN.
  double kl = 0, smoothness = 0, mse = 0, perplexity = 0;
  std::vector<double> epoch_losses;                  // mean training loss of each epoch
  std::vector<std::pair<int64_t, double>> test_losses;  // (1-based epoch, mean test loss) every kToyTestLossEvery epochs and at the end
  double seconds = 0;                                // wall time of the run
  // The first sample_points test points: (x, y) raw, true pmf and predicted pmf over the bins
  // ((S, bins) float64; regression: predicted is one-hot at the predicted bin).
  Tensor sample_xy, sample_true_pmf, sample_pred_pmf;
};

// The complete "fourier-toy" task config of a run (task keys and trainer section): the MLE
// heads get the cosine schedule to 1e-6 and gradient clipping at clip_norm.
Json toy_task_config(const ToyRunConfig& config);

// Trains one configuration and evaluates it. Runs on the calling thread with the current
// hm::get_num_threads() (a study runs several at once, one inner thread each). on_epoch(epoch,
// mean_loss) is called after every epoch (0-based) if set. Throws train::RunInterrupted when a
// stop was requested (Ctrl-C) before the run finished.
ToyRunResult run_toy_density(const ToyRunConfig& config, const std::function<void(int64_t, double)>& on_epoch = {});

}  // namespace hm::studies
