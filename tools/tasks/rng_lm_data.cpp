#include "harmonic/tools/tasks/rng_lm_data.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "harmonic/core/error.h"

namespace hm::train {

const std::vector<RngDistribution>& rng_distributions() {
  static const std::vector<RngDistribution> d = {{-0.55, 0.10}, {-0.03, 0.24}, {0.42, 0.16}, {0.55, 0.10}};
  return d;
}

std::string format_two_decimals(double x) {
  const int64_t cents = std::llround(x * 100.0);
  return fmt::format("{}{}.{:02d}", cents < 0 ? "-" : "", std::abs(cents) / 100, std::abs(cents) % 100);
}

std::string rng_prompt(const RngDistribution& d, double x1, double x2) {
  return fmt::format(
      "The following is a list of normally distributed random numbers in the interval [-1, 1] with mean {} and std "
      "{}: {}, {},",
      format_two_decimals(d.mu), format_two_decimals(d.sigma), format_two_decimals(x1), format_two_decimals(x2));
}

double draw_rng_value(const RngDistribution& d, std::mt19937_64& rng) {
  check(d.sigma > 0, "draw_rng_value", "sigma must be positive, got {}", d.sigma);
  std::normal_distribution<double> normal(d.mu, d.sigma);
  for (;;) {
    const double x = std::round(normal(rng) * 100.0) / 100.0;
    if (x >= -1.0 && x <= 1.0) return x;
  }
}

int64_t rng_value_to_bin(double value) {
  check(value >= -1.0 - 1e-9 && value <= 1.0 + 1e-9, "rng_value_to_bin", "value {} outside [-1, 1]", value);
  return std::clamp<int64_t>(std::llround((value + 1.0) * 100.0), 0, kRngBins - 1);
}

double rng_bin_to_value(int64_t bin) {
  check(bin >= 0 && bin < kRngBins, "rng_bin_to_value", "bin {} outside [0, {})", bin, kRngBins);
  return std::round(bin - 100.0) / 100.0;
}

std::vector<RngPair> make_rng_pairs(int64_t count, uint64_t seed) {
  const auto& dists = rng_distributions();
  const auto n = static_cast<int64_t>(dists.size());
  check(count > 0 && count % n == 0, "make_rng_pairs", "count must be a positive multiple of {}, got {}", n, count);
  std::mt19937_64 rng(seed);
  std::vector<RngPair> pairs;
  for (int64_t i = 0; i < count; ++i) {
    const RngDistribution& d = dists[static_cast<size_t>(i % n)];
    const double x1 = draw_rng_value(d, rng), x2 = draw_rng_value(d, rng), x3 = draw_rng_value(d, rng);
    pairs.push_back({i % n, rng_prompt(d, x1, x2), " " + format_two_decimals(x3), x3});
  }
  return pairs;
}

}  // namespace hm::train
