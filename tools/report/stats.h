// Statistics over seeds for study reports: the mean and population std of one metric with the
// per-seed values kept (so claims can be paired seed by seed), and the mean curve of several
// runs' curves (training / test loss per epoch over seeds).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace hm::report {

using Json = nlohmann::json;

// One metric over seeds. std is the population std (ddof = 0, numpy.std's default):
// sqrt(mean((v - mean)^2)). A NaN value makes mean and std NaN (a diverged run must show); no
// values gives NaN too. seeds[i] is the seed of values[i] (seeds distinct).
struct MetricStats {
  double mean = 0, std = 0;
  size_t count = 0;
  std::vector<uint64_t> seeds;
  std::vector<double> values;
  std::optional<double> at_seed(uint64_t seed) const;  // nullopt when the seed has no value
};

// The values keyed by their position 0, 1, 2, ... (when no seeds are known).
MetricStats mean_std(const std::vector<double>& values);
// The values keyed by seed; throws on a length mismatch or a repeated seed.
MetricStats seed_stats(const std::vector<uint64_t>& seeds, const std::vector<double>& values);

// s in other units: every value multiplied by k > 0 (fractions to percent), mean and std
// recomputed from them.
MetricStats scaled(const MetricStats& s, double k);

// {"mean", "std", "count", "seeds", "values"}; NaN is null.
Json stats_json(const MetricStats& s);
Json number_or_null(double v);
// j[key] as a double; NaN where j is no object, has no `key` or holds no number there.
double number_or_nan(const Json& j, const std::string& key);

// Several curves (x, y) (e.g. one per seed) reduced to the mean and population std at every x
// that all of them have, in increasing x. No curves: empty.
struct CurveStats {
  std::vector<double> x, mean, std;
  size_t curves = 0;
};
CurveStats mean_curve(const std::vector<std::vector<std::pair<double, double>>>& curves);

}  // namespace hm::report
