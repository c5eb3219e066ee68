#include "harmonic/nn/forecast_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harmonic/core/error.h"

namespace hm::nn {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> forecast_quantile_levels() { return {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}; }

int64_t effective_season(int64_t history_length, int64_t m) {
  check(m >= 1, "effective_season", "season length must be >= 1, got {}", m);
  return history_length >= m + 1 ? m : 1;
}

double seasonal_naive_scale(const std::vector<double>& y, int64_t m) {
  m = effective_season(std::ssize(y), m);
  double sum = 0;
  int64_t n = 0;
  for (int64_t t = m; t < std::ssize(y); ++t)
    if (std::isfinite(y[t]) && std::isfinite(y[t - m])) sum += std::abs(y[t] - y[t - m]), ++n;
  return n > 0 ? sum / static_cast<double>(n) : kNaN;
}

std::vector<double> seasonal_naive_forecast(const std::vector<double>& y, int64_t horizon, int64_t m) {
  check(!y.empty() && horizon >= 0, "seasonal_naive_forecast", "need a non-empty history and horizon >= 0, got {} and {}",
        y.size(), horizon);
  m = std::min<int64_t>(effective_season(std::ssize(y), m), std::ssize(y));
  const int64_t T = std::ssize(y);
  std::vector<double> f(static_cast<size_t>(horizon));
  for (int64_t h = 0; h < horizon; ++h) {  // a missing value: the same season's latest observed one
    int64_t t = T - m + (h % m);
    while (t - m >= 0 && !std::isfinite(y[t])) t -= m;
    f[h] = y[t];
  }
  return f;
}

double mase(const std::vector<double>& history, const std::vector<double>& truth, const std::vector<double>& forecast,
            int64_t m) {
  check(truth.size() == forecast.size(), "mase", "truth ({}) and forecast ({}) lengths differ", truth.size(),
        forecast.size());
  const double scale = seasonal_naive_scale(history, m);
  double sum = 0;
  int64_t n = 0;
  for (size_t h = 0; h < truth.size(); ++h)
    if (std::isfinite(truth[h])) sum += std::abs(truth[h] - forecast[h]), ++n;
  if (n == 0 || !(scale > 0)) return kNaN;
  return sum / static_cast<double>(n) / scale;
}

double wql(const std::vector<double>& truth, const std::vector<std::vector<double>>& qf,
           const std::vector<double>& levels) {
  check(!levels.empty() && qf.size() == levels.size(), "wql", "{} quantile forecasts for {} levels", qf.size(),
        levels.size());
  double denom = 0;
  for (double y : truth)
    if (std::isfinite(y)) denom += std::abs(y);
  if (!(denom > 0)) return kNaN;
  double total = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    check(qf[i].size() == truth.size(), "wql", "quantile forecast {} has {} steps, truth {}", i, qf[i].size(),
          truth.size());
    const double q = levels[i];
    double loss = 0;
    for (size_t h = 0; h < truth.size(); ++h) {
      if (!std::isfinite(truth[h])) continue;
      const double u = truth[h] - qf[i][h];
      loss += std::max(q * u, (q - 1) * u);
    }
    total += 2 * loss / denom;
  }
  return total / static_cast<double>(levels.size());
}

double geometric_mean(const std::vector<double>& values) {
  double sum = 0;
  int64_t n = 0;
  for (double v : values)
    if (std::isfinite(v) && v > 0) sum += std::log(v), ++n;
  return n > 0 ? std::exp(sum / static_cast<double>(n)) : kNaN;
}

double sample_quantile(std::vector<double> s, double q) {
  check(!s.empty() && q >= 0 && q <= 1, "sample_quantile", "need samples and q in [0, 1], got {} samples, q = {}",
        s.size(), q);
  std::sort(s.begin(), s.end());
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

SeriesScores score_series(const std::vector<double>& history, const std::vector<double>& truth,
                          const std::vector<double>& median, const std::vector<std::vector<double>>& quantiles,
                          int64_t m) {
  const std::vector<double> levels = forecast_quantile_levels();
  const std::vector<double> naive = seasonal_naive_forecast(history, std::ssize(truth), m);
  SeriesScores s;
  s.mase = mase(history, truth, median, m);
  s.wql = wql(truth, quantiles, levels);
  s.naive_mase = mase(history, truth, naive, m);
  s.naive_wql = wql(truth, std::vector<std::vector<double>>(levels.size(), naive), levels);
  return s;
}

namespace {
// r with its counts, geometric means and plain means from the counted relative scores rm, rw
// (r.mean_* hold the sums of the counted items).
RelativeScores finished(RelativeScores r, const std::vector<double>& rm, const std::vector<double>& rw) {
  r.series = std::ssize(rm);
  r.relative_mase = geometric_mean(rm);
  r.relative_wql = geometric_mean(rw);
  r.mean_mase = r.series > 0 ? r.mean_mase / static_cast<double>(r.series) : kNaN;
  r.mean_wql = r.series > 0 ? r.mean_wql / static_cast<double>(r.series) : kNaN;
  return r;
}
}  // namespace

RelativeScores relative_scores(const std::vector<SeriesScores>& scores) {
  std::vector<double> rm, rw;
  RelativeScores r;
  for (const SeriesScores& s : scores) {
    const double a = s.mase / s.naive_mase, b = s.wql / s.naive_wql;
    if (!(std::isfinite(a) && a > 0 && std::isfinite(b) && b > 0)) {
      ++r.skipped;
      continue;
    }
    rm.push_back(a), rw.push_back(b);
    r.mean_mase += s.mase, r.mean_wql += s.wql;
  }
  return finished(r, rm, rw);
}

RelativeScores relative_scores_by_group(const std::vector<SeriesScores>& scores, const std::vector<std::string>& groups) {
  check(scores.size() == groups.size(), "relative_scores_by_group", "{} scores but {} group names", scores.size(),
        groups.size());
  std::vector<std::string> names = groups;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<double> rm, rw;
  RelativeScores r;
  for (const std::string& g : names) {
    std::vector<SeriesScores> in;
    for (size_t i = 0; i < scores.size(); ++i)
      if (groups[i] == g) in.push_back(scores[i]);
    const RelativeScores one = relative_scores(in);
    r.skipped += one.skipped;
    if (one.series == 0) continue;
    rm.push_back(one.relative_mase), rw.push_back(one.relative_wql);
    r.mean_mase += one.mean_mase, r.mean_wql += one.mean_wql;
  }
  return finished(r, rm, rw);
}

}  // namespace hm::nn
