// Statistics over seeds (see stats.h).
#include "harmonic/tools/report/stats.h"

#include <cmath>
#include <limits>
#include <map>

#include "harmonic/core/error.h"

namespace hm::report {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::optional<double> MetricStats::at_seed(uint64_t seed) const {
  for (size_t i = 0; i < seeds.size() && i < values.size(); ++i)
    if (seeds[i] == seed) return values[i];
  return std::nullopt;
}

MetricStats seed_stats(const std::vector<uint64_t>& seeds, const std::vector<double>& values) {
  check(seeds.size() == values.size(), "seed_stats", "{} seeds for {} values", seeds.size(), values.size());
  for (size_t i = 0; i < seeds.size(); ++i)
    for (size_t j = 0; j < i; ++j) check(seeds[i] != seeds[j], "seed_stats", "seed {} appears twice", seeds[i]);
  MetricStats s;
  s.count = values.size();
  s.seeds = seeds;
  s.values = values;
  if (values.empty()) {
    s.mean = s.std = kNaN;
    return s;
  }
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(values.size()));  // ddof = 0
  return s;
}

MetricStats mean_std(const std::vector<double>& values) {
  std::vector<uint64_t> positions(values.size());
  for (size_t i = 0; i < values.size(); ++i) positions[i] = i;
  return seed_stats(positions, values);
}

Json number_or_null(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

double number_or_nan(const Json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key)) return NAN;
  const Json& v = j.at(key);
  return v.is_number() ? v.get<double>() : NAN;
}

Json stats_json(const MetricStats& s) {
  Json values = Json::array();
  for (double v : s.values) values.push_back(number_or_null(v));
  return {{"mean", number_or_null(s.mean)},
          {"std", number_or_null(s.std)},
          {"count", s.count},
          {"seeds", s.seeds},
          {"values", std::move(values)}};
}

CurveStats mean_curve(const std::vector<std::vector<std::pair<double, double>>>& curves) {
  CurveStats out;
  out.curves = curves.size();
  if (curves.empty()) return out;
  std::map<double, std::vector<double>> at;  // x -> the curves' y there
  for (const auto& c : curves)
    for (const auto& [x, y] : c) at[x].push_back(y);
  for (const auto& [x, ys] : at) {
    if (ys.size() != curves.size()) continue;  // an x some curve lacks (or repeats)
    const MetricStats s = mean_std(ys);
    out.x.push_back(x), out.mean.push_back(s.mean), out.std.push_back(s.std);
  }
  return out;
}

MetricStats scaled(const MetricStats& s, double k) {
  std::vector<double> values = s.values;
  for (double& v : values) v *= k;
  return seed_stats(s.seeds, values);  // mean and std of the scaled values
}

}  // namespace hm::report
