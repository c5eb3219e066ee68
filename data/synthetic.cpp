#include "harmonic/data/synthetic.h"

#include <cmath>
#include <vector>

#include "harmonic/core/checked_math.h"
#include "harmonic/core/factories.h"

namespace hm::data {

Classification make_spirals(int64_t points_per_class, int64_t classes, double noise, Generator& gen) {
  check(points_per_class > 0 && classes > 1, "make_spirals", "need points_per_class > 0 and classes > 1, got {} and {}",
        points_per_class, classes);
  const int64_t n = checked_mul(points_per_class, classes, "make_spirals");  // (--set points_per_class=2^62 wrapped)
  checked_mul(n, 2, "make_spirals");                                         // the (n, 2) points
  std::vector<double> jitter = randn({n}, {.dtype = DType::Float64}, &gen).to_vector();
  std::vector<float> xy(2 * n);
  std::vector<int64_t> labels(n);
  for (int64_t c = 0; c < classes; ++c) {
    for (int64_t i = 0; i < points_per_class; ++i) {
      int64_t k = c * points_per_class + i;
      double radius = static_cast<double>(i) / static_cast<double>(points_per_class);
      double angle =
          4.0 * radius + 2.0 * M_PI * static_cast<double>(c) / static_cast<double>(classes) + noise * jitter[k];
      xy[2 * k] = static_cast<float>(radius * std::sin(angle));
      xy[2 * k + 1] = static_cast<float>(radius * std::cos(angle));
      labels[k] = c;
    }
  }
  return {from_vector(xy, {n, 2}), from_vector(labels, {n})};
}

}  // namespace hm::data
