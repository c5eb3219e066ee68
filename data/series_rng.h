// Host random numbers for the series generators (KernelSynth, TSMixup): a seeded
// std::mt19937_64 with our own uniform / normal / gamma transforms, so a seed gives the same
// series with every standard library (std:: distributions are implementation-defined).
#pragma once
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace hm::data {

// splitmix64 of (seed, stream, index): independent seeds for series `index` of `stream`.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ (stream + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull ^
               (index + 1) * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class SeriesRng {
 public:
  explicit SeriesRng(uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  int64_t below(int64_t n) { return static_cast<int64_t>(uniform() * static_cast<double>(n)); }  // [0, n)
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  // Gamma(alpha, 1) by Marsaglia and Tsang (2000); alpha < 1 through the U^(1/alpha) boost.
  double gamma(double alpha) {
    if (alpha < 1.0) return gamma(alpha + 1.0) * std::pow(1.0 - uniform(), 1.0 / alpha);
    const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x = normal(), v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      const double u = 1.0 - uniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace hm::data
