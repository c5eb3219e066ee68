// KernelSynth, TSMixup and the generated-series split (data/kernel_synth.h, data/ts_mixup.h,
// data/generated_series.h) and the float64 Cholesky under them (data/cholesky.h).
#include <chrono>
#include <cmath>
#include <set>

#include "harmonic/data/cholesky.h"
#include "harmonic/data/generated_series.h"
#include "harmonic/data/kernel_synth.h"
#include "harmonic/data/series_rng.h"
#include "harmonic/data/ts_mixup.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::throws_with;

namespace {

// Eigenvalues of a small symmetric matrix by cyclic Jacobi rotations (test-only reference).
std::vector<double> jacobi_eigenvalues(std::vector<double> a, int64_t n) {
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-22) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        if (std::abs(a[p * n + q]) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq, a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk, a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> ev;
  for (int64_t i = 0; i < n; ++i) ev.push_back(a[i * n + i]);
  return ev;
}

// Pearson correlation of x_t with x_{t - lag}.
double autocorrelation(const std::vector<double>& x, int64_t lag) {
  const auto n = static_cast<int64_t>(x.size()) - lag;
  double ma = 0, mb = 0;
  for (int64_t t = 0; t < n; ++t) ma += x[t + lag] / n, mb += x[t] / n;
  double num = 0, va = 0, vb = 0;
  for (int64_t t = 0; t < n; ++t) {
    num += (x[t + lag] - ma) * (x[t] - mb);
    va += (x[t + lag] - ma) * (x[t + lag] - ma), vb += (x[t] - mb) * (x[t] - mb);
  }
  return num / std::sqrt(va * vb);
}

}  // namespace

TEST_CASE("cholesky_lower: L L^T reproduces an SPD matrix across blocks, a non-PD matrix is refused") {
  const int64_t n = 150;  // spans three 64-wide blocks
  data::SeriesRng rng(3);
  std::vector<double> b(static_cast<size_t>(n * n)), a(static_cast<size_t>(n * n), 0.0);
  for (double& v : b) v = rng.normal();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < n; ++k) a[i * n + j] += b[i * n + k] * b[j * n + k];
      a[i * n + j] += i == j ? 1.0 : 0.0;
    }
  std::vector<double> l = a;
  REQUIRE(data::cholesky_lower(l, n));
  double worst = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += l[i * n + k] * l[j * n + k];
      worst = std::max(worst, std::abs(s - a[i * n + j]) / (1 + std::abs(a[i * n + j])));
      if (j > i) CHECK(l[i * n + j] == 0.0);
    }
  CHECK(worst < 1e-10);
  std::vector<double> indefinite = {1, 2, 2, 1};  // eigenvalues 3 and -1
  CHECK_FALSE(data::cholesky_lower(indefinite, 2));
  std::vector<double> wrong(5);
  CHECK(throws_with([&] { data::cholesky_lower(wrong, 2); }, {"cholesky_lower", "n = 2"}));
}

TEST_CASE("KernelSynth: every bank kernel's covariance is positive semi-definite and factorises with jitter") {
  const int64_t n = 32;
  for (const data::GPKernel& k : data::kernel_bank()) {
    CAPTURE(k.name());
    data::KernelComposition c{{k}, {}};
    std::vector<double> cov = c.covariance(n);
    std::vector<double> ev = jacobi_eigenvalues(cov, n);
    CHECK(*std::min_element(ev.begin(), ev.end()) > -1e-9);  // PSD: every eigenvalue >= 0
    data::KernelSynthSeries s = data::sample_gp(c, n, 1);
    CHECK(s.values.size() == static_cast<size_t>(n));
    for (double v : s.values) CHECK(std::isfinite(v));
  }
  // A composition: sums and products of PSD kernels stay PSD (Schur product theorem).
  data::KernelComposition mix{{{data::KernelKind::Periodic, 7}, {data::KernelKind::RBF, 0.1}, {data::KernelKind::Linear, 1}},
                              {'*', '+'}};
  CHECK(mix.describe() == "(periodic(7) * rbf(0.1)) + linear(1)");
  std::vector<double> ev = jacobi_eigenvalues(mix.covariance(n), n);
  CHECK(*std::min_element(ev.begin(), ev.end()) > -1e-9);
  CHECK(*std::max_element(ev.begin(), ev.end()) > 1.0);
}

TEST_CASE("KernelSynth: a periodic kernel's samples repeat at the period") {
  const int64_t period = 24, length = 240;
  data::KernelComposition c{{{data::KernelKind::Periodic, static_cast<double>(period)}}, {}};
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<double> y = data::sample_gp(c, length, seed).values;
    CHECK(autocorrelation(y, period) > 0.99);
    CHECK(autocorrelation(y, 2 * period) > 0.99);
    CHECK(autocorrelation(y, period / 2) < 0.9);  // not a shorter period
  }
  // An RBF sample (no periodicity) does not come back at that lag.
  data::KernelComposition rbf{{{data::KernelKind::RBF, 0.01}}, {}};
  CHECK(autocorrelation(data::sample_gp(rbf, length, 1).values, period) < 0.5);
}

TEST_CASE("KernelSynth and TSMixup: the same seed gives the same series, another seed another") {
  data::KernelSynthOptions o{.length = 128, .max_kernels = 5};
  for (uint64_t seed = 0; seed < 8; ++seed) {
    data::KernelSynthSeries a = data::kernel_synth(o, seed), b = data::kernel_synth(o, seed);
    CHECK(a.values == b.values);
    CHECK(a.kernel.describe() == b.kernel.describe());
    CHECK(a.values != data::kernel_synth(o, seed + 100).values);
  }
  std::vector<std::vector<double>> pool;
  for (uint64_t s = 0; s < 6; ++s) pool.push_back(data::kernel_synth(o, s).values);
  data::TSMixupOptions m{.min_length = 40, .max_length = 100};
  std::set<size_t> lengths;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::vector<double> x = data::ts_mixup(pool, m, seed);
    CHECK(x == data::ts_mixup(pool, m, seed));
    CHECK(x != data::ts_mixup(pool, m, seed + 1000));
    CHECK(x.size() >= 40);
    CHECK(x.size() <= 100);
    lengths.insert(x.size());
    // A convex combination of mean-|x|-scaled windows: mean |x| <= 1.
    double mean_abs = 0;
    for (double v : x) mean_abs += std::abs(v) / static_cast<double>(x.size());
    CHECK(mean_abs <= 1.0 + 1e-12);
  }
  CHECK(lengths.size() > 5);  // random lengths
  CHECK(throws_with([] { data::ts_mixup({}, {}, 0); }, {"ts_mixup", "empty"}));
  CHECK(data::mean_abs_scale({0.0, 0.0}) == 1.0);
  CHECK(data::mean_abs_scale({-2.0, NAN, 4.0}) == 3.0);
}

TEST_CASE("generate_series: train and held-out series come from disjoint seeds and are reproducible") {
  data::GeneratedSeriesOptions o;
  o.kernel_synth_series = 12, o.mixup_series = 6, o.held_out_series = 8;
  o.synth.length = 96;
  o.mixup.min_length = 64;
  o.seed = 5;
  data::GeneratedSeries a = data::generate_series(o);
  CHECK(a.train.size() == 18);
  CHECK(a.held_out.size() == 8);
  for (const auto& h : a.held_out)
    for (const auto& t : a.train) CHECK(h != t);
  data::GeneratedSeries b = data::generate_series(o);
  CHECK(a.train == b.train);
  CHECK(a.held_out == b.held_out);
  o.kernel_synth_series = 20;  // more training series leave the held-out set as it was
  CHECK(data::generate_series(o).held_out == a.held_out);
  o.seed = 6;
  CHECK(data::generate_series(o).held_out != a.held_out);
  // Each held-out series comes with the kernel it was sampled from (its true seasonality).
  REQUIRE(a.held_out_kernels.size() == a.held_out.size());
  for (const auto& k : a.held_out_kernels) CHECK(!k.kernels.empty());
}

TEST_CASE("KernelComposition::season_length: the shortest periodic kernel that fits, else 1") {
  using data::GPKernel, data::KernelKind;
  const GPKernel p24{KernelKind::Periodic, 24}, p7{KernelKind::Periodic, 7}, p365{KernelKind::Periodic, 365},
      rbf{KernelKind::RBF, 1};
  CHECK(data::KernelComposition{{rbf}, {}}.season_length(64) == 1);
  CHECK(data::KernelComposition{{p24}, {}}.season_length(64) == 24);
  CHECK(data::KernelComposition{{p24, rbf, p7}, {'+', '*'}}.season_length(64) == 7);
  CHECK(data::KernelComposition{{p365, rbf}, {'*'}}.season_length(64) == 1);  // a 365-step period is a trend here
  CHECK(data::KernelComposition{{p24, p365}, {'+'}}.season_length(16) == 1);
}

TEST_CASE("KernelSynth throughput (printed, not checked)") {
  for (int64_t length : {256, 1024}) {
    const int count = length == 256 ? 20 : 3;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) data::kernel_synth({.length = length}, static_cast<uint64_t>(i));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("KernelSynth length " << length << ": " << count / s << " series/s");
  }
}
