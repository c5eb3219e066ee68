#include "harmonic/data/kernel_synth.h"

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "harmonic/core/error.h"
#include "harmonic/data/cholesky.h"
#include "harmonic/data/series_rng.h"

namespace hm::data {

std::string GPKernel::name() const {
  switch (kind) {
    case KernelKind::Linear: return fmt::format("linear({:g})", param);
    case KernelKind::RBF: return fmt::format("rbf({:g})", param);
    case KernelKind::Periodic: return fmt::format("periodic({:g})", param);
    case KernelKind::RationalQuadratic: return fmt::format("rq({:g})", param);
    case KernelKind::Constant: return "constant";
    case KernelKind::WhiteNoise: return fmt::format("white({:g})", param);
  }
  return "?";
}

double GPKernel::operator()(int64_t t, int64_t t2, int64_t length) const {
  const double x = static_cast<double>(t) / static_cast<double>(length);
  const double x2 = static_cast<double>(t2) / static_cast<double>(length);
  const double d = std::abs(x - x2);
  switch (kind) {
    case KernelKind::Linear: return param * param + x * x2;
    case KernelKind::RBF: return std::exp(-d * d / (2 * param * param));
    case KernelKind::Periodic: {
      const double s = std::sin(std::numbers::pi * static_cast<double>(std::abs(t - t2)) / param);
      return std::exp(-2 * s * s);
    }
    case KernelKind::RationalQuadratic: return std::pow(1 + d * d / (2 * param), -param);
    case KernelKind::Constant: return 1.0;
    case KernelKind::WhiteNoise: return t == t2 ? param : 0.0;
  }
  return 0;
}

std::vector<GPKernel> kernel_bank() {
  std::vector<GPKernel> bank;
  for (double p : {24, 48, 96, 168, 336, 672, 7, 14, 30, 60, 365, 730, 4, 26, 52, 6, 12, 40, 10})
    bank.push_back({KernelKind::Periodic, p});
  for (double s : {0.0, 1.0, 10.0}) bank.push_back({KernelKind::Linear, s});
  for (double l : {0.1, 1.0, 10.0}) bank.push_back({KernelKind::RBF, l});
  for (double a : {0.1, 1.0, 10.0}) bank.push_back({KernelKind::RationalQuadratic, a});
  for (double v : {0.1, 1.0}) bank.push_back({KernelKind::WhiteNoise, v});
  bank.push_back({KernelKind::Constant, 0});
  return bank;
}

int64_t KernelComposition::season_length(int64_t max_period) const {
  int64_t season = 0;
  for (const GPKernel& k : kernels) {
    if (k.kind != KernelKind::Periodic) continue;
    const auto p = static_cast<int64_t>(std::llround(k.param));
    if (p >= 2 && p <= max_period && (season == 0 || p < season)) season = p;
  }
  return season == 0 ? 1 : season;
}

std::string KernelComposition::describe() const {
  std::string s = kernels.empty() ? "" : kernels[0].name();
  for (size_t i = 1; i < kernels.size(); ++i)
    s = fmt::format("{} {} {}", i > 1 ? "(" + s + ")" : s, ops[i - 1], kernels[i].name());
  return s;
}

std::vector<double> KernelComposition::covariance(int64_t n) const {
  check(!kernels.empty() && ops.size() + 1 == kernels.size() && n >= 1, "KernelComposition::covariance",
        "need >= 1 kernel, one op between each two and length >= 1, got {} kernels, {} ops, length {}", kernels.size(),
        ops.size(), n);
  // Every bank kernel but linear depends on |t - t'| only: tabulate those by lag once (O(n) exp/pow/sin
  // instead of O(n^2)), so the (n, n) pass is lookups, adds and multiplies.
  std::vector<std::vector<double>> by_lag(kernels.size());
  for (size_t q = 0; q < kernels.size(); ++q) {
    if (kernels[q].kind == KernelKind::Linear) continue;
    by_lag[q].resize(static_cast<size_t>(n));
    for (int64_t lag = 0; lag < n; ++lag) by_lag[q][lag] = kernels[q](lag, 0, n);
  }
  auto value = [&](size_t q, int64_t i, int64_t j) { return by_lag[q].empty() ? kernels[q](i, j, n) : by_lag[q][i - j]; };
  std::vector<double> k(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double v = value(0, i, j);
      for (size_t q = 1; q < kernels.size(); ++q) v = ops[q - 1] == '+' ? v + value(q, i, j) : v * value(q, i, j);
      k[i * n + j] = k[j * n + i] = v;
    }
  return k;
}

KernelComposition random_kernel_composition(uint64_t seed, int64_t max_kernels) {
  check(max_kernels >= 1, "random_kernel_composition", "max_kernels must be >= 1, got {}", max_kernels);
  static const std::vector<GPKernel> bank = kernel_bank();
  SeriesRng rng(mix_seed(seed, 1, 0));
  KernelComposition c;
  const int64_t j = 1 + rng.below(max_kernels);
  for (int64_t i = 0; i < j; ++i) c.kernels.push_back(bank[static_cast<size_t>(rng.below(std::ssize(bank)))]);
  for (int64_t i = 1; i < j; ++i) c.ops.push_back(rng.below(2) == 0 ? '+' : '*');
  return c;
}

KernelSynthSeries sample_gp(const KernelComposition& kernel, int64_t length, uint64_t seed, double jitter) {
  check(length >= 2 && jitter > 0, "sample_gp", "need length >= 2 and jitter > 0, got {} and {}", length, jitter);
  const std::vector<double> cov = kernel.covariance(length);
  double mean_diag = 0;
  for (int64_t i = 0; i < length; ++i) mean_diag += cov[i * length + i] / static_cast<double>(length);
  mean_diag = std::max(mean_diag, 1e-12);
  KernelSynthSeries out;
  out.kernel = kernel;
  std::vector<double> l;
  bool ok = false;
  for (double eps = jitter * mean_diag; !ok && eps <= mean_diag; eps *= 10) {
    l = cov;
    for (int64_t i = 0; i < length; ++i) l[i * length + i] += eps;
    ok = cholesky_lower(l, length);
    out.jitter_used = eps;
  }
  check(ok, "sample_gp", "the covariance of {} (length {}) is not positive definite even with jitter {}",
        kernel.describe(), length, out.jitter_used);
  SeriesRng rng(mix_seed(seed, 2, 0));
  std::vector<double> z(static_cast<size_t>(length));
  for (double& v : z) v = rng.normal();
  out.values = lower_times(l, length, std::move(z));
  return out;
}

KernelSynthSeries kernel_synth(const KernelSynthOptions& o, uint64_t seed) {
  return sample_gp(random_kernel_composition(seed, o.max_kernels), o.length, seed, o.jitter);
}

}  // namespace hm::data
