// The model of the Fourier head paper's toy study (section 4.1, Appendices C.2, C.3): an MLP
// 2 -> 64 -> 32 -> head learning the conditional distribution of z given (x, y) on the data of
// data/toy_density.h. Its training task, runs and study: tools/studies/fourier_toy/.
#pragma once
#include <cstdint>
#include <string_view>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"
#include "harmonic/data/toy_density.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module.h"

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

}  // namespace hm::models
