#include "harmonic/data/smoothness_signals.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/ops/dft.h"

namespace hm::data {

std::vector<std::vector<double>> square_wave_pmfs(int64_t max_terms, int64_t m) {
  check(max_terms >= 1 && m >= 2, "square_wave_pmf", "needs terms >= 1 and m >= 2, got {} and {}", max_terms, m);
  std::vector<double> wave(static_cast<size_t>(m), 0.0);  // the signed sum so far
  std::vector<std::vector<double>> out;
  for (int64_t k = 1; k <= max_terms; ++k) {
    std::vector<double>& y = out.emplace_back(static_cast<size_t>(m));
    double total = 0.0;
    for (int64_t j = 0; j < m; ++j) {
      wave[j] += std::sin((2 * k - 1) * (2.0 * M_PI * (j + 0.5) / m)) / (2 * k - 1);
      total += (y[j] = std::max(wave[j], 0.0));
    }
    for (double& v : y) v /= total;
  }
  return out;
}

std::vector<double> square_wave_pmf(int64_t terms, int64_t m) { return square_wave_pmfs(terms, m).back(); }

std::string_view noise_colour_name(NoiseColour colour) {
  switch (colour) {
    case NoiseColour::Brown:
      return "brown";
    case NoiseColour::Pink:
      return "pink";
    case NoiseColour::White:
      return "white";
    case NoiseColour::Blue:
      return "blue";
  }
  return "?";
}

std::vector<double> coloured_noise_pmf(std::vector<std::complex<double>> x, NoiseColour colour) {
  const int64_t t = static_cast<int64_t>(x.size());
  check(t >= 2, "coloured_noise_pmf", "needs at least 2 samples, got {}", t);
  const double beta = 2.0 - static_cast<double>(colour);  // brown 2, pink 1, white 0, blue -1
  for (int64_t k = 0; k < t; ++k) {
    const int64_t f = std::min(k, t - k);  // |frequency| in units of 1/t
    x[k] *= f == 0 ? (beta == 0 ? 1.0 : 0.0) : std::pow(double(f) / t, -beta / 2);
  }
  dft_inplace(x, true);
  std::vector<double> y(static_cast<size_t>(t));
  double lo = INFINITY, hi = -INFINITY, total = 0.0;
  for (int64_t k = 0; k < t; ++k) y[k] = x[k].real(), lo = std::min(lo, y[k]), hi = std::max(hi, y[k]);
  for (double& v : y) total += (v = (v - lo) / (hi - lo));
  for (double& v : y) v /= total;
  return y;
}

}  // namespace hm::data
