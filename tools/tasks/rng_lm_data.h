// The data of the Fourier head paper's "LLMs as random number generators" study (section 4.2,
// Appendix C.4): prompts
//   "The following is a list of normally distributed random numbers in the interval [-1, 1]
//    with mean MU and std SIGMA: X1, X2,"
// with response " X3", (mu, sigma) one of four pairs, x_i ~ N(mu, sigma) written with two
// decimals. Draws outside [-1, 1] are resampled (the interval the prompt names; the paper
// does not say), so the target distribution is the Gaussian truncated to [-1, 1], then
// rounded to hundredths. Values map to the Fourier head's 200 bins of [-1, 1] by bin
// j <-> -1.00 + 0.01 j (1.00 joins bin 199).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hm::train {

struct RngDistribution {
  double mu, sigma;
};
// The paper's four pairs: (-0.55, 0.10), (-0.03, 0.24), (0.42, 0.16), (0.55, 0.10).
const std::vector<RngDistribution>& rng_distributions();

// "-0.55", "0.10": two decimals, a leading 0, "-" only below zero ("-0.00" is written "0.00").
std::string format_two_decimals(double x);
// The prompt for distribution d and the two shown values (no trailing space).
std::string rng_prompt(const RngDistribution& d, double x1, double x2);
// One draw of N(mu, sigma) rounded to hundredths, resampled until it lies in [-1, 1].
double draw_rng_value(const RngDistribution& d, std::mt19937_64& rng);

// Hundredths <-> Fourier-head bins: value v in [-1, 1] -> round(100 (v + 1)) clamped to [0, 199].
int64_t rng_value_to_bin(double value);
double rng_bin_to_value(int64_t bin);  // -1 + 0.01 bin
inline constexpr int64_t kRngBins = 200;

struct RngPair {
  int64_t distribution;  // index into rng_distributions()
  std::string prompt;    // rng_prompt(...)
  std::string response;  // " X3"
  double value;          // X3
};
// `count` pairs divided evenly over the four distributions (count % 4 == 0), in order
// d0, d1, d2, d3, d0, ... so any prefix stays balanced; x1, x2, x3 drawn from one
// std::mt19937_64 seeded by seed.
std::vector<RngPair> make_rng_pairs(int64_t count, uint64_t seed);

}  // namespace hm::train
