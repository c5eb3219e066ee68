#include "harmonic/data/series_tokenizer.h"

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/data/ts_mixup.h"

namespace hm::data {

SeriesTokenizer::SeriesTokenizer(std::vector<double> centres, double low, double high)
    : centres_(std::move(centres)), low_(low), high_(high) {
  check(centres_.size() >= 2 && low < high, "SeriesTokenizer", "need >= 2 bin centres and low < high, got {} in [{}, {}]",
        centres_.size(), low, high);
  for (size_t i = 0; i < centres_.size(); ++i) {
    check(std::isfinite(centres_[i]) && centres_[i] >= low && centres_[i] <= high &&
              (i == 0 || centres_[i] > centres_[i - 1]),
          "SeriesTokenizer", "bin centres must increase within [{}, {}]: centre {} is {}", low, high, i, centres_[i]);
    if (i > 0) boundaries_.push_back(0.5 * (centres_[i - 1] + centres_[i]));
  }
}

SeriesTokenizer SeriesTokenizer::uniform(int64_t n_tokens, double low, double high) {
  check(n_tokens >= kSpecialTokens + 2, "SeriesTokenizer::uniform", "n_tokens must be >= 4, got {}", n_tokens);
  const int64_t bins = n_tokens - kSpecialTokens;
  std::vector<double> c(static_cast<size_t>(bins));
  for (int64_t j = 0; j < bins; ++j) c[j] = low + (high - low) * (static_cast<double>(j) + 0.5) / static_cast<double>(bins);
  return SeriesTokenizer(std::move(c), low, high);
}

SeriesTokenizer SeriesTokenizer::mixed(int64_t n_tokens, double dense_low, double dense_high, double d, double low,
                                       double high) {
  constexpr std::string_view fn = "SeriesTokenizer::mixed";
  check(d > 0 && d < 1, fn, "sparse_fraction must be in (0, 1), got {}", d);
  check(low < dense_low && dense_low < dense_high && dense_high < high, fn,
        "need low < dense_low < dense_high < high, got {} < {} < {} < {}", low, dense_low, dense_high, high);
  const int64_t bins = n_tokens - kSpecialTokens;
  const auto sparse = static_cast<int64_t>(std::floor(d * static_cast<double>(bins)));
  check(sparse >= 2 && bins - sparse >= 1, fn, "{} bins with sparse fraction {} leave {} sparse bins (need >= 2)", bins,
        d, sparse);
  // mixed_precision_bin_centres takes the sparse density per unit length relative to the dense one.
  const double dense_len = dense_high - dense_low, sparse_len = (dense_low - low) + (high - dense_high);
  const double density = static_cast<double>(sparse) / static_cast<double>(bins - sparse) * dense_len / sparse_len;
  return SeriesTokenizer(mixed_precision_bin_centres(bins, low, dense_low, dense_high, high, density).to_vector(),
                         low, high);
}

int64_t SeriesTokenizer::bin_of(double scaled) const {
  return std::upper_bound(boundaries_.begin(), boundaries_.end(), scaled) - boundaries_.begin();
}

int64_t SeriesTokenizer::token_of(double value, double scale) const {
  return std::isfinite(value) ? bin_of(value / scale) + kSpecialTokens : kPad;
}

double SeriesTokenizer::value_of_bin(int64_t bin, double scale) const {
  check(bin >= 0 && bin < bins(), "SeriesTokenizer::value_of_bin", "bin {} out of range [0, {})", bin, bins());
  return centres_[static_cast<size_t>(bin)] * scale;
}

SeriesTokenizer::Context SeriesTokenizer::encode_context(const std::vector<double>& history, int64_t length) const {
  check(length >= 1, "SeriesTokenizer::encode_context", "length must be >= 1, got {}", length);
  const int64_t n = std::min<int64_t>(length, std::ssize(history));
  std::vector<double> window(history.end() - n, history.end());
  Context c;
  c.scale = mean_abs_scale(window);
  c.ids.assign(static_cast<size_t>(length - n), kPad);
  for (double v : window) c.ids.push_back(token_of(v, c.scale));
  c.ids.push_back(kEos);
  for (int64_t id : c.ids) c.mask.push_back(id != kPad);
  return c;
}

std::vector<int64_t> SeriesTokenizer::encode_labels(const std::vector<double>& values, double scale) const {
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(std::isfinite(v) ? bin_of(v / scale) : kIgnoreLabel);
  return out;
}

std::pair<double, double> estimate_dense_interval(const std::vector<std::vector<double>>& series,
                                                  int64_t context_length, double lower_q, double upper_q, double low,
                                                  double high) {
  constexpr std::string_view fn = "estimate_dense_interval";
  check(context_length >= 1 && 0 <= lower_q && lower_q < upper_q && upper_q <= 1, fn,
        "need context_length >= 1 and 0 <= lower_q < upper_q <= 1, got {}, {}, {}", context_length, lower_q, upper_q);
  std::vector<double> scaled;
  for (const auto& s : series) {
    const int64_t n = std::min<int64_t>(context_length, std::ssize(s));
    const double scale = mean_abs_scale(std::vector<double>(s.begin(), s.begin() + n));
    for (double v : s)
      if (std::isfinite(v)) scaled.push_back(v / scale);
  }
  check(!scaled.empty(), fn, "no finite value in {} series", series.size());
  std::sort(scaled.begin(), scaled.end());
  auto quantile = [&](double q) { return scaled[static_cast<size_t>(q * static_cast<double>(scaled.size() - 1))]; };
  const double margin = (high - low) / 100;
  double a = std::clamp(quantile(lower_q), low + margin, high - 2 * margin);
  double b = std::clamp(quantile(upper_q), a + margin, high - margin);
  return {a, b};
}

Tensor mixed_precision_bin_centres(int64_t bins, double low, double mid1, double mid2, double high,
                                   double sparse_density) {
  check(bins >= 3 && low < mid1 && mid1 < mid2 && mid2 < high && sparse_density > 0, "mixed_precision_bin_centres",
        "need bins >= 3, low < mid1 < mid2 < high and sparse_density > 0, got bins={} {} {} {} {} density {}", bins,
        low, mid1, mid2, high, sparse_density);
  // Bins per unit length: d in the dense interval, sparse_density * d outside.
  const double weight_low = sparse_density * (mid1 - low), weight_mid = mid2 - mid1,
               weight_high = sparse_density * (high - mid2);
  const double total = weight_low + weight_mid + weight_high;
  int64_t n_low = std::max<int64_t>(1, std::llround(bins * weight_low / total));
  int64_t n_high = std::max<int64_t>(1, std::llround(bins * weight_high / total));
  int64_t n_mid = bins - n_low - n_high;
  check(n_mid >= 1, "mixed_precision_bin_centres", "too few bins ({}) for three intervals", bins);
  std::vector<double> centres;
  centres.reserve(static_cast<size_t>(bins));
  auto add_interval = [&](double a, double b, int64_t n) {
    for (int64_t i = 0; i < n; ++i) centres.push_back(a + (b - a) * (static_cast<double>(i) + 0.5) / n);
  };
  add_interval(low, mid1, n_low);
  add_interval(mid1, mid2, n_mid);
  add_interval(mid2, high, n_high);
  return from_vector(centres, {bins});
}

}  // namespace hm::data
