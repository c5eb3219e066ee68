// The Fourier head paper's toy datasets (Gillman et al., ICLR 2025, section 4.1, Appendix C.2):
// triples (x, y, z) where z is drawn from a known distribution conditioned on (x, y), so the
// true conditional density of every test point is available for the KL metric.
//   Gaussian: x ~ U(I), y ~ N(x, s2), z ~ N(y, s2)
//   GMM-2:    x, y ~ U(I),           z ~ 0.5 N(x, s2) + 0.5 N(y, s2)
//   Beta:     x ~ U(I), y ~ N(x, s2), z = r * Beta(100|x|, 100|y|), r = +-1 equiprobable
// with I = [-0.8, 0.8] and s2 = 0.01. Values are quantised into `bins` uniform bins of [-1, 1].
#pragma once
#include <cstdint>
#include <string_view>

#include "harmonic/core/tensor.h"

namespace hm::data {

enum class ToyDistribution { Gaussian, GMM2, Beta };

std::string_view toy_distribution_name(ToyDistribution kind);  // "gaussian", "gmm2", "beta"
ToyDistribution parse_toy_distribution(std::string_view name);  // throws listing the names

struct ToyDensityOptions {
  int64_t size = 5000;  // triples, before the split
  double variance = 0.01;
  double low = -0.8, high = 0.8;  // the interval I
  int64_t bins = 50;
  double train_fraction = 0.8;  // the first 80% of the drawn triples train, the rest test
};

struct ToyDensitySplit {
  Tensor x, y, z;        // (n) float64: the raw draws
  Tensor bin_inputs;     // (n, 2) float32: bin indices of x and y as floats (the reference code's input)
  Tensor raw_inputs;     // (n, 2) float32: raw x and y (the MLE variant's input)
  Tensor target_bins;    // (n) int64: bin index of z
  Tensor true_pmf;       // (n, bins) float64: true conditional pdf at the bin centres, rows sum to 1
};

struct ToyDensityDataset {
  ToyDistribution kind;
  ToyDensityOptions options;
  ToyDensitySplit train, test;
};

// Deterministic in (kind, seed, options): the same arguments give bit-identical data.
ToyDensityDataset make_toy_density(ToyDistribution kind, uint64_t seed, const ToyDensityOptions& options = {});

// The true conditional density p(z | x, y), float64. x, y: (n); z: (P) shared by every row or
// (n, P). -> (n, P). Zero outside the support (Beta: |z| >= 1 or z = 0 gives 0).
Tensor toy_conditional_pdf(ToyDistribution kind, const Tensor& x, const Tensor& y, const Tensor& z,
                           double variance = 0.01);

// Bin index in [0, bins) of values in [-1, 1] (bins of width 2 / bins; values outside clamp to
// the end bins). Any float dtype, any shape -> int64 of the same shape.
Tensor quantize_to_bins(const Tensor& values, int64_t bins);

}  // namespace hm::data
