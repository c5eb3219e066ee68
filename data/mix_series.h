// The Fourier Recurrent Unit paper's synthetic sequences (Zhang et al., ICML 2018, section 6.1,
// Appendix D, Algorithms 1 and 2): N sequences of length T, each a random mixture of
// K fixed curves, for next-step prediction.
//
//   u_t = (t - 0.5 T) / (0.5 T),  t = 1..T                               (so u in (-1, 1])
//   mix-sin  (Alg. 1): c_i(t) = sum_{j=1}^{D} a_ij sin(2 pi f_j u_t + 2 pi theta_j)
//                      f_j ~ U[0.1, 3], theta_j ~ U[-1, 1] (shared by all i), a_ij ~ U[-1, 1]
//   mix-poly (Alg. 2): c_i(t) = sum_{j=1}^{D} a_ij u_t^j,  a_ij ~ U[-1, 1], D = degree
//   sequence l:        x_l(t) = sum_{i=1}^{K} ( delta_li c_i(t) + b_li ),  delta_li, b_li ~ N(0, 0.1)
//
// The curves (a, f, theta) are drawn once per data set; delta and b once per sequence.
// Paper defaults: N = 4000, T = 176, K = 5, D = 15 (mix-sin) or degree in {5, 10, 15}
// (mix-poly), 80% train / 20% test. Over the T samples u spans one window of length 2, so
// sin(2 pi f u) makes 2 f cycles per sequence: a DFT of length T puts it at bin 2 f.
//
// Where the paper is ambiguous, and what we chose:
// - N(0, 0.1): read as standard deviation 0.1 (the authors' load.py calls
//   np.random.normal(0, 0.1), whose second argument is the std). Option `mix_std`.
// - "+ b_i" sits inside the sum over i, so a sequence's offset is b_l1 + ... + b_lK, with
//   variance K * 0.1^2. We follow the formula as written.
// - The algorithm draws delta_i and b_i inside the loop over sequences; we draw all N x K
//   rates, then all N x K biases, from one counter-based stream (same distribution).
// - Split: the paper says only "80% train, 20% test"; the sequences are exchangeable, so the
//   first round(0.8 N) train and the rest test (the released code used a seeded random split).
// - Normalisation: neither the paper nor the released code normalises; nor do we. Values are
//   raw (at u = 1 a mix-poly curve is sum_j a_ij, so x has std about 0.1 sqrt(K D / 3 + K)).
//
// The released code (github.com/limbo018/FRU, code/load.py) differs from the algorithms; it is
// available as MixVariant::ReleasedCode: u_t = 2 (t - 0.5 T) / T with t = 0..T-1 (so u in
// [-1, 1)), frequencies on the grid {0.1, 0.2, ..., 2.9} (randint(1, 30) * 0.1), a phase per
// (component, sine) rather than per sine, and one bias per sequence (biases has shape (N, 1)).
// Its component count and degree are the same options. numpy's stream is not reproduced.
//
// Everything is deterministic in (kind, options) including options.seed: draws come from a
// Philox hm::Generator, so they do not depend on the thread count.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

#include "harmonic/core/tensor.h"
#include "harmonic/data/dataset.h"

namespace hm::data {

enum class MixKind { Sin, Poly };
enum class MixVariant { Paper, ReleasedCode };

std::string_view mix_kind_name(MixKind kind);   // "mix-sin", "mix-poly"
MixKind parse_mix_kind(std::string_view name);  // also "sin", "poly"; throws listing the names

struct MixSeriesOptions {
  int64_t size = 4000;          // N sequences, before the split
  int64_t length = 176;         // T
  int64_t components = 5;       // K
  int64_t terms = 15;           // D: sines per component (mix-sin, >= 1) or degree (mix-poly: 5, 10 or 15)
  double mix_std = 0.1;         // std of the mixture rates delta and biases b
  double train_fraction = 0.8;  // in (0, 1): the first round(fraction N) sequences train
  uint64_t seed = 0;
  MixVariant variant = MixVariant::Paper;
};

struct MixSeries {
  MixKind kind;
  MixSeriesOptions options;
  // The fixed curves' parameters, float64.
  Tensor freqs;       // (D) mix-sin frequencies f_j; undefined for mix-poly
  Tensor phases;      // (K, D) mix-sin theta (rows equal under Paper); undefined for mix-poly
  Tensor amplitudes;  // (K, D) a_ij; for mix-poly column j - 1 multiplies u^j
  Tensor time_axis;   // (T) u_t
  Tensor curves;      // (K, T) c_i(t)
  // Per sequence, float64.
  Tensor rates;   // (N, K) delta
  Tensor biases;  // (N, K) b (Paper), (N, 1) (ReleasedCode)
  // The data, float32.
  Tensor series;  // (N, T, 1) x_l(t)
  Tensor train;   // (n_train, T, 1): series[:n_train]
  Tensor test;    // (N - n_train, T, 1): series[n_train:]
};

// Generates a data set; throws hm::Error naming make_mix_series and the bad value for K < 1,
// T < 2, N < 2, D < 1 (mix-sin) or degree not in {5, 10, 15} (mix-poly), mix_std <= 0, or a
// train fraction outside (0, 1) or leaving a split empty.
MixSeries make_mix_series(MixKind kind, const MixSeriesOptions& options = {});

// The time axis u_t of either variant. -> (T) float64.
Tensor mix_time_axis(int64_t length, MixVariant variant = MixVariant::Paper);

// c_i(t) = sum_j a_ij sin(2 pi f_j u_t + 2 pi theta_ij). freqs (D), phases (K, D),
// amplitudes (K, D), u (T), any float dtype. -> (K, T) float64.
Tensor mix_sin_curves(const Tensor& freqs, const Tensor& phases, const Tensor& amplitudes, const Tensor& u);

// c_i(t) = sum_{j=1}^{D} a_i,j u_t^j. amplitudes (K, D), u (T). -> (K, T) float64.
Tensor mix_poly_curves(const Tensor& amplitudes, const Tensor& u);

// Next-step prediction pairs of sequences (N, T, F):
//   inputs  = series[:, :T-1]   (N, T-1, F)
//   targets = series[:, 1:]     (N, T-1, F)
// Both are fresh contiguous tensors of the series' dtype. Throws for dim != 3 or T < 2.
Example next_step_pairs(const Tensor& series);

// next_step_pairs as a dataset: example i is (inputs[i] (T-1, F), targets[i] (T-1, F)).
std::shared_ptr<TensorDataset> next_step_dataset(const Tensor& series);

}  // namespace hm::data
