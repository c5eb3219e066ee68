// The Fourier head paper's toy study (section 4.1, Appendices C.2, C.3): an MLP
// 2 -> 64 -> 32 -> head learning the conditional distribution of z given (x, y) on the data of
// data/toy_density.h. One run = one (dataset, head, frequencies, gamma, seed) configuration.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/random.h"
#include "core/tensor.h"
#include "data/toy_density.h"
#include "nn/fourier_head.h"
#include "nn/linear.h"
#include "nn/module.h"

namespace hm::models {

// Classification heads over the 50 bins (cross-entropy on the bin index of z):
//   Linear, GMM (K = 1 on Gaussian, 2 otherwise), Fourier (N frequencies, gamma);
// the pointwise regression baseline (Linear(32, 1) on z's bin centre, MSE);
// the continuous MLE variants (negative log-likelihood of raw z, raw inputs, cosine schedule,
// gradient clipping): GMMMLE and FourierMLE.
enum class ToyHead { Linear, GMM, Fourier, Regression, GMMMLE, FourierMLE };

std::string_view toy_head_name(ToyHead head);   // "linear", "gmm", "fourier", "regression", "gmm-mle", "fourier-mle"
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
  double lr = 1e-3;                           // Adam
  double clip_norm = 1.0;                     // MLE variants only (global gradient norm)
  int64_t sample_points = 0;                  // keep this many test points' pmfs for plots
  data::ToyDensityOptions data_options = {};  // dataset size, bins, ... (tests shrink the size)
};

struct ToyRunResult {
  ToyRunConfig config;
  // Test-set metrics. Classification heads: kl, smoothness, mse. Regression: mse only.
  // MLE heads: kl (true vs predicted density at the bin centres, both normalised), perplexity,
  // smoothness of the predicted pmf. Metrics a head does not have are NaN.
  double kl = 0, smoothness = 0, mse = 0, perplexity = 0;
  std::vector<double> epoch_losses;  // mean training loss of each epoch
  // (1-based epoch, mean test loss) at the evaluation points
  std::vector<std::pair<int64_t, double>> test_losses;
  double seconds = 0;                // wall time of the run
  // The first sample_points test points: (x, y) raw, true pmf and predicted pmf over the bins
  // ((S, bins) float64; regression: predicted is one-hot at the predicted bin).
  Tensor sample_xy, sample_true_pmf, sample_pred_pmf;
};

// Trains one configuration on its dataset (make_toy_density(config.dataset, config.seed)) and
// evaluates it. Single-threaded friendly: callers run several in parallel threads.
// on_epoch(epoch, mean_loss) is called after every epoch if set.
ToyRunResult run_toy_density(const ToyRunConfig& config, const std::function<void(int64_t, double)>& on_epoch = {});

// -- the pieces run_toy_density is made of (shared with the "fourier-toy" trainer task) --------

// The seeds of a run's own generator streams (the data uses config.seed itself through
// make_toy_density): parameter initialisation and the per-epoch batch order.
uint64_t toy_init_seed(uint64_t seed);
uint64_t toy_shuffle_seed(uint64_t seed);

// What a head trains on: inputs (n, 2) float32 (bin indices as floats; raw x, y for the MLE
// heads) and targets (n): int64 bin of z (classification heads), float32 centre of z's bin
// (regression) or float32 raw z (MLE heads).
struct ToyTensors {
  Tensor inputs, targets;
};
ToyTensors toy_tensors(const data::ToyDensitySplit& split, ToyHead head);

// The MLP 2 -> 64 -> 32 -> head with ReLU. Parameters are drawn from gen in the order
// fc1, fc2, head (PyTorch default Linear init; the Fourier heads divide theirs by 100).
class ToyDensityModel : public nn::Module {
 public:
  ToyDensityModel(ToyHead head, int64_t bins, data::ToyDistribution dataset, int64_t frequencies, double gamma,
                  Generator* gen);
  Tensor features(const Tensor& inputs);  // (n, 2) -> (n, 32)
  // The training loss of a batch (0-d float32): cross-entropy (+ the Fourier regulariser),
  // MSE (regression) or mean negative log-likelihood (+ regulariser; MLE heads).
  Tensor loss(const Tensor& inputs, const Tensor& targets);
  // The predicted pmf over the bins, (n, bins) float64, no autograd: softmax of the logits,
  // one-hot at the predicted bin (regression), the density at the bin centres normalised (MLE).
  Tensor predict_pmf(const Tensor& inputs);
  // MLE heads: the predicted density at points (n) (one per row), (n) float64, no autograd.
  Tensor density_at(const Tensor& inputs, const Tensor& points);
  // Regression: the predicted value (n) float32, no autograd.
  Tensor predict_value(const Tensor& inputs);

  ToyHead head;
  int64_t bins;
  std::shared_ptr<nn::Linear> fc1, fc2;
  std::shared_ptr<nn::Linear> linear;               // Linear(32, bins) or Linear(32, 1) (regression)
  std::shared_ptr<nn::FourierHead> fourier;         // Fourier
  std::shared_ptr<nn::FourierHeadMLE> fourier_mle;  // FourierMLE
  std::shared_ptr<nn::GMMHead> gmm;                 // GMM and GMMMLE
};

// GMM components for a dataset: 1 on Gaussian, 2 otherwise.
int64_t toy_gmm_components(data::ToyDistribution dataset);

// Test-set metrics of a trained model on a split (NaN where the head has none; see
// ToyRunResult) and the predicted pmfs (n, bins) float64 (no autograd).
struct ToyMetrics {
  double kl = 0, smoothness = 0, mse = 0, perplexity = 0;
  Tensor pred_pmf;
};
ToyMetrics evaluate_toy_model(ToyDensityModel& model, const data::ToyDensitySplit& split);

}  // namespace hm::models
