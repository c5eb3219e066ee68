#include "harmonic/tools/tasks/rng_lm_metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "harmonic/core/error.h"

namespace hm::train {
namespace {

double normal_cdf(double x, double mu, double sigma) { return 0.5 * std::erfc(-(x - mu) / (sigma * std::sqrt(2.0))); }

void check_pair(const std::vector<double>& p, const std::vector<double>& q, const char* fn) {
  check(p.size() == q.size() && !p.empty(), fn, "histograms must have the same non-zero length, got {} and {}",
        p.size(), q.size());
}

}  // namespace

int64_t rng_histogram_bin(double value) {
  check(value >= -1.0 - 1e-9 && value <= 1.0 + 1e-9, "rng_histogram_bin", "value {} outside [-1, 1]", value);
  const int64_t cents = std::llround((value + 1.0) * 100.0);  // 0 .. 200
  return std::min<int64_t>(cents / 10, kRngHistogramBins - 1);
}

std::vector<double> quantised_gaussian_histogram(double mu, double sigma) {
  check(sigma > 0, "quantised_gaussian_histogram", "sigma must be positive, got {}", sigma);
  // Hundredth c (0..200, value -1 + c/100) is what x in [v - 0.005, v + 0.005) rounds to, cut to [-1, 1].
  std::vector<double> h(kRngHistogramBins, 0.0);
  double total = 0;
  for (int64_t c = 0; c <= 200; ++c) {
    const double v = -1.0 + c / 100.0;
    const double lo = std::max(-1.0, v - 0.005), hi = std::min(1.0, v + 0.005);
    const double mass = normal_cdf(hi, mu, sigma) - normal_cdf(lo, mu, sigma);
    h[static_cast<size_t>(std::min<int64_t>(c / 10, kRngHistogramBins - 1))] += mass;
    total += mass;
  }
  check(total > 0, "quantised_gaussian_histogram", "N({}, {}) has no mass in [-1, 1]", mu, sigma);
  for (double& x : h) x /= total;
  return h;
}

std::vector<double> empirical_histogram(const std::vector<double>& valid, int64_t total) {
  check(total > 0 && static_cast<int64_t>(valid.size()) <= total, "empirical_histogram",
        "need 0 < total ({}) >= the {} valid samples", total, valid.size());
  std::vector<double> h(kRngHistogramBins, 0.0);
  for (double v : valid) h[static_cast<size_t>(rng_histogram_bin(v))] += 1.0 / static_cast<double>(total);
  return h;
}

double tvd_paper(const std::vector<double>& p, const std::vector<double>& q) {
  check_pair(p, q, "tvd_paper");
  double m = 0;
  for (size_t i = 0; i < p.size(); ++i) m = std::max(m, std::abs(p[i] - q[i]));
  return 0.5 * m;
}

double tvd_l1(const std::vector<double>& p, const std::vector<double>& q) {
  check_pair(p, q, "tvd_l1");
  double s = 0;
  for (size_t i = 0; i < p.size(); ++i) s += std::abs(p[i] - q[i]);
  return 0.5 * s;
}

int64_t unique_samples(const std::vector<double>& valid) {
  std::set<int64_t> cents;
  for (double v : valid) cents.insert(std::llround(v * 100.0));
  return static_cast<int64_t>(cents.size());
}

std::optional<double> parse_rng_sample(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t end = i;
  while (end < text.size() && text[end] != ',' && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  const std::string s = text.substr(i, end - i);
  // -?D+(.D{1,2})?
  size_t k = s.size() && s[0] == '-' ? 1 : 0;
  const size_t int_start = k;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
  if (k == int_start) return std::nullopt;
  if (k < s.size()) {
    if (s[k] != '.') return std::nullopt;
    const size_t frac_start = ++k;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
    if (k != s.size() || k == frac_start || k - frac_start > 2) return std::nullopt;
  }
  const double v = std::round(std::stod(s) * 100.0) / 100.0;
  if (v < -1.0 || v > 1.0) return std::nullopt;
  return v == 0.0 ? 0.0 : v;
}

}  // namespace hm::train
