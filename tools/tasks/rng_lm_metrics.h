// The RNG study's metrics (Fourier head paper, Appendix C.4) over 20 bins of width 0.1 on
// [-1, 1]. Samples are two-decimal values; value v falls in bin min(floor(round(100 (v + 1))
// / 10), 19), so hundredths 10k .. 10k+9 form bin k and 1.00 joins bin 19.
//   - the ground truth: N(mu, sigma) truncated to [-1, 1] and rounded to hundredths
//     (how rng_lm_data draws), its mass per bin;
//   - the empirical histogram: count per bin / ALL samples drawn, so invalid samples
//     (unparseable or outside [-1, 1]) are missing mass that counts against the model;
//   - TVD as the paper defines it: one half of the L-infinity distance, 0.5 max_k |p_k - q_k|;
//   - the standard TVD: one half of the L1 distance, 0.5 sum_k |p_k - q_k|;
//   - unique samples: distinct valid values.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hm::train {

inline constexpr int64_t kRngHistogramBins = 20;

// The bin of a value in [-1, 1] (throws outside).
int64_t rng_histogram_bin(double value);
// Mass of the truncated, rounded Gaussian in each of the 20 bins (sums to 1).
std::vector<double> quantised_gaussian_histogram(double mu, double sigma);
// Counts of the valid samples per bin divided by total (valid + invalid), total > 0.
std::vector<double> empirical_histogram(const std::vector<double>& valid_samples, int64_t total);
double tvd_paper(const std::vector<double>& p, const std::vector<double>& q);  // 0.5 max |p - q|
double tvd_l1(const std::vector<double>& p, const std::vector<double>& q);     // 0.5 sum |p - q|
int64_t unique_samples(const std::vector<double>& valid_samples);              // distinct hundredths

// A generated continuation read as a number: leading spaces skipped, then characters up to
// the first ',' or whitespace (or the end); valid when that is a number in [-1, 1] written
// with at most two decimals ("0.4", "-0.42", "1"), which is returned rounded to hundredths.
std::optional<double> parse_rng_sample(const std::string& text);

}  // namespace hm::train
