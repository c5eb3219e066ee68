#include "harmonic/data/ts_mixup.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/data/series_rng.h"

namespace hm::data {

double mean_abs_scale(const std::vector<double>& x) {
  double sum = 0;
  int64_t n = 0;
  for (double v : x)
    if (std::isfinite(v)) sum += std::abs(v), ++n;
  return n > 0 && sum > 0 ? sum / static_cast<double>(n) : 1.0;
}

std::vector<double> ts_mixup(const std::vector<std::vector<double>>& pool, const TSMixupOptions& o, uint64_t seed) {
  check(!pool.empty(), "ts_mixup", "the pool of series is empty");
  check(o.max_components >= 1 && o.alpha > 0 && o.min_length >= 1 && o.max_length >= o.min_length, "ts_mixup",
        "need max_components >= 1, alpha > 0 and 1 <= min_length <= max_length, got {}, {}, {}..{}",
        o.max_components, o.alpha, o.min_length, o.max_length);
  SeriesRng rng(mix_seed(seed, 3, 0));
  const int64_t k = 1 + rng.below(o.max_components);
  int64_t length = o.min_length + rng.below(o.max_length - o.min_length + 1);
  std::vector<const std::vector<double>*> picked;
  for (int64_t i = 0; i < k; ++i) {
    picked.push_back(&pool[static_cast<size_t>(rng.below(std::ssize(pool)))]);
    check(!picked.back()->empty(), "ts_mixup", "pool series of length 0");
    length = std::min<int64_t>(length, std::ssize(*picked.back()));
  }
  std::vector<double> weights(static_cast<size_t>(k));
  double total = 0;
  for (double& w : weights) total += (w = rng.gamma(o.alpha));
  std::vector<double> out(static_cast<size_t>(length), 0.0);
  for (int64_t i = 0; i < k; ++i) {
    const std::vector<double>& s = *picked[i];
    const int64_t offset = rng.below(std::ssize(s) - length + 1);
    std::vector<double> window(s.begin() + offset, s.begin() + offset + length);
    const double scale = mean_abs_scale(window);
    for (int64_t t = 0; t < length; ++t) out[t] += weights[i] / total * window[t] / scale;
  }
  return out;
}

}  // namespace hm::data
