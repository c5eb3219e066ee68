// KernelSynth (Ansari et al., Chronos, 2024, section 4.2 and Algorithm 2):
// synthetic series drawn from Gaussian processes whose kernel is a random composition of
// kernels from a fixed bank.
//
//   1. j ~ U{1..J}; draw j kernels from the bank with replacement.
//   2. Fold them left to right, each time joining with + or * (equiprobable).
//   3. Sample y ~ GP(0, K) on x_t = t / L, t = 0..L-1: float64 Cholesky of K + eps I (eps
//      = jitter * mean diag, grown tenfold up to six times until the factor exists), y = L z.
//
// The bank follows the Chronos conventions (its sklearn kernels on inputs in [0, 1]):
//   periodic   exp(-2 sin^2(pi |x - x'| / p) / l^2), l = 1, p = P / L for the periods
//              P (in samples) {24, 48, 96, 168, 336, 672, 7, 14, 30, 60, 365, 730, 4, 26, 52,
//              6, 12, 40, 10}: Chronos draws series of L = 1024 with p = P / 1024; with another
//              L the period stays P samples (one cycle per P steps), so the seasonalities of
//              hourly / daily / weekly data survive shorter series (P > L is a slow trend)
//   linear     sigma0^2 + x x', sigma0 in {0, 1, 10}
//   RBF        exp(-|x - x'|^2 / (2 l^2)), l in {0.1, 1, 10}
//   rational quadratic (1 + |x - x'|^2 / (2 alpha))^-alpha, l = 1, alpha in {0.1, 1, 10}
//   white noise  sigma^2 [x = x'], sigma^2 in {0.1, 1}
//   constant   1
// Everything is a deterministic function of (options, seed).
//
// Throughput (one core of the 2-core VM shared with other builds, Release, OpenBLAS):
// see tests/data/test_chronos_data.cpp "KernelSynth throughput" and README "Chronos forecasting".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hm::data {

enum class KernelKind { Linear, RBF, Periodic, RationalQuadratic, Constant, WhiteNoise };

struct GPKernel {
  KernelKind kind;
  double param = 0;  // periodic: period in samples; linear: sigma0; RBF: length scale;
                     // RQ: alpha; white noise: variance; constant: unused
  std::string name() const;  // "periodic(24)", "rbf(0.1)", ...
  // k(x, x') for inputs x = t / length (white noise: only when t == t').
  double operator()(int64_t t, int64_t t2, int64_t length) const;
};

// The bank above, in a fixed order.
std::vector<GPKernel> kernel_bank();

// kernels[0] ops[0] kernels[1] ops[1] ... folded left to right; ops[i] is '+' or '*'.
struct KernelComposition {
  std::vector<GPKernel> kernels;
  std::vector<char> ops;  // kernels.size() - 1
  std::string describe() const;  // "(periodic(24) + rbf(1)) * linear(0)"
  // The season a forecaster would be scored with: the shortest period (in samples) of the
  // periodic kernels that is at most max_period (so a history sees it repeat), else 1.
  int64_t season_length(int64_t max_period) const;
  // The covariance (length, length) row-major on x_t = t / length.
  std::vector<double> covariance(int64_t length) const;
};

struct KernelSynthOptions {
  int64_t length = 256;     // L samples per series
  int64_t max_kernels = 5;  // J (Chronos: 5)
  double jitter = 1e-6;     // relative to the mean diagonal
};

struct KernelSynthSeries {
  std::vector<double> values;  // (L)
  KernelComposition kernel;
  double jitter_used = 0;      // the eps that made K + eps I factorisable
};

// A random composition of 1..J bank kernels for this seed.
KernelComposition random_kernel_composition(uint64_t seed, int64_t max_kernels);
// One GP sample of `kernel` (the z draw from seed). Throws if no jitter up to 1e-0 x mean
// diagonal made the covariance factorisable.
KernelSynthSeries sample_gp(const KernelComposition& kernel, int64_t length, uint64_t seed, double jitter = 1e-6);
// Both steps: one KernelSynth series for this seed.
KernelSynthSeries kernel_synth(const KernelSynthOptions& options, uint64_t seed);

}  // namespace hm::data
