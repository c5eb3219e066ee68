// The Fourier head paper's toy study (section 4.1, Appendices C.2, C.3): an MLP
// 2 -> 64 -> 32 -> head learning the conditional distribution of z given (x, y) on the data of
// data/toy_density.h. One run = one (dataset, head, frequencies, gamma, seed) configuration.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "core/tensor.h"
#include "data/toy_density.h"

namespace hm::models {

// Classification heads over the 50 bins (cross-entropy on the bin index of z):
//   Linear, GMM (K = 1 on Gaussian, 2 otherwise), Fourier (N frequencies, gamma);
// the pointwise regression baseline (Linear(32, 1) on z's bin centre, MSE);
// the continuous MLE variants (negative log-likelihood of raw z, raw inputs, cosine schedule,
// gradient clipping): GMMMLE and FourierMLE.
enum class ToyHead { Linear, GMM, Fourier, Regression, GMMMLE, FourierMLE };

std::string_view toy_head_name(ToyHead head);  // "linear", "gmm", "fourier", "regression", "gmm-mle", "fourier-mle"
ToyHead parse_toy_head(std::string_view name);  // throws listing the names
bool is_mle(ToyHead head);

struct ToyRunConfig {
  data::ToyDistribution dataset = data::ToyDistribution::Gaussian;
  ToyHead head = ToyHead::Fourier;
  int64_t frequencies = 12;  // Fourier heads only
  double gamma = 0.0;        // Fourier heads only: regulariser weight
  uint64_t seed = 1;         // data, initialisation and batch order
  int64_t epochs = 500;
  int64_t batch_size = 32;
  double lr = 1e-3;          // Adam
  double clip_norm = 1.0;    // MLE variants only (global gradient norm)
  int64_t sample_points = 0; // keep this many test points' pmfs for plots
};

struct ToyRunResult {
  ToyRunConfig config;
  // Test-set metrics. Classification heads: kl, smoothness, mse. Regression: mse only.
  // MLE heads: kl (true vs predicted density at the bin centres, both normalised), perplexity,
  // smoothness of the predicted pmf. Metrics a head does not have are NaN.
  double kl = 0, smoothness = 0, mse = 0, perplexity = 0;
  std::vector<double> epoch_losses;  // mean training loss of each epoch
  double seconds = 0;                // wall time of the run
  // The first sample_points test points: (x, y) raw, true pmf and predicted pmf over the bins
  // ((S, bins) float64; regression: predicted is one-hot at the predicted bin).
  Tensor sample_xy, sample_true_pmf, sample_pred_pmf;
};

// Trains one configuration on its dataset (make_toy_density(config.dataset, config.seed)) and
// evaluates it. Single-threaded friendly: callers run several in parallel threads.
// on_epoch(epoch, mean_loss) is called after every epoch if set.
ToyRunResult run_toy_density(const ToyRunConfig& config,
                             const std::function<void(int64_t, double)>& on_epoch = {});

}  // namespace hm::models
