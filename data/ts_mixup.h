// TSMixup (Ansari et al., Chronos, 2024, section 4.1 and Algorithm 1): a new series as a
// convex combination of k <= K mean-scaled series, with Dirichlet weights and a random length.
//
//   k ~ U{1..K}; l ~ U{min_length..max_length}; pick k pool series (with replacement); from
//   each a window of l points at a random offset (the whole series when shorter, then l is
//   cut to the shortest); scale each window by its mean |x| (1 when all zero); weights
//   lambda ~ Dir(alpha, ..., alpha); x = sum_i lambda_i x_i.
// Chronos: K = 3, alpha = 1.5, lengths 128..2048.
#pragma once
#include <cstdint>
#include <vector>

namespace hm::data {

struct TSMixupOptions {
  int64_t max_components = 3;  // K
  double alpha = 1.5;          // Dirichlet concentration
  int64_t min_length = 128;
  int64_t max_length = 2048;
};

// Mean |x| over the finite values; 1 when there are none or it is 0 (the Chronos scale).
double mean_abs_scale(const std::vector<double>& x);

// One TSMixup series from the pool for this seed. Throws on an empty pool or bad options.
std::vector<double> ts_mixup(const std::vector<std::vector<double>>& pool, const TSMixupOptions& options,
                             uint64_t seed);

}  // namespace hm::data
