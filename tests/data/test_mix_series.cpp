// The FRU paper's mix-sin / mix-poly data (data/mix_series.h): shapes, determinism, a direct
// evaluation of Algorithms 1-2 from the stored parameters, the draws' distributions, the
// frequency content of the sine curves, next-step pairs, and option errors.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>

#include "harmonic/data/mix_series.h"
#include "harmonic/ops/dft.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using namespace hm::test;

namespace {

Tensor d64(const std::vector<double>& v, const Shape& shape) {
  return from_vector(v, shape, {.dtype = DType::Float64});
}

double mean_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

// Sample mean and variance of the draws must match N(0, s^2). Standard errors for n i.i.d.
// normals: mean s / sqrt(n), sample variance s^2 sqrt(2 / (n - 1)); we allow 5 of each.
void check_normal_draws(const std::vector<double>& v, double s) {
  const double n = static_cast<double>(v.size()), m = mean_of(v);
  double var = 0.0;
  for (double x : v) var += (x - m) * (x - m);
  var /= n - 1.0;
  CHECK(std::fabs(m) < 5.0 * s / std::sqrt(n));
  CHECK(std::fabs(var - s * s) < 5.0 * s * s * std::sqrt(2.0 / (n - 1.0)));
}

}  // namespace

TEST_CASE("mix_series: shapes, dtypes, 80/20 split (first rows train)") {
  for (MixKind kind : {MixKind::Sin, MixKind::Poly})
    for (MixVariant variant : {MixVariant::Paper, MixVariant::ReleasedCode}) {
      MixSeries ds = make_mix_series(kind, {.seed = 3, .variant = variant});
      CHECK(ds.series.shape() == Shape{4000, 176, 1});
      CHECK(ds.series.dtype() == DType::Float32);
      CHECK(ds.train.shape() == Shape{3200, 176, 1});
      CHECK(ds.test.shape() == Shape{800, 176, 1});
      CHECK(ds.train.dtype() == DType::Float32);
      CHECK(ds.curves.shape() == Shape{5, 176});
      CHECK(ds.amplitudes.shape() == Shape{5, 15});
      CHECK(ds.rates.shape() == Shape{4000, 5});
      CHECK(ds.biases.shape() == Shape{4000, variant == MixVariant::Paper ? 5 : 1});
      CHECK(ds.freqs.defined() == (kind == MixKind::Sin));
      std::vector<double> all = ds.series.to_vector(), tr = ds.train.to_vector(), te = ds.test.to_vector();
      CHECK(std::equal(tr.begin(), tr.end(), all.begin()));
      CHECK(std::equal(te.begin(), te.end(), all.begin() + tr.size()));
      CHECK(std::all_of(all.begin(), all.end(), [](double v) { return std::isfinite(v); }));
    }
}

TEST_CASE("mix_series: same seed gives identical tensors, another seed differs") {
  for (MixKind kind : {MixKind::Sin, MixKind::Poly}) {
    MixSeriesOptions o{.size = 200, .terms = 10, .seed = 7};
    MixSeries a = make_mix_series(kind, o), b = make_mix_series(kind, o);
    CHECK(a.series.to_vector() == b.series.to_vector());
    CHECK(a.amplitudes.to_vector() == b.amplitudes.to_vector());
    o.seed = 8;
    MixSeries c = make_mix_series(kind, o);
    CHECK(a.series.to_vector() != c.series.to_vector());
    CHECK(a.amplitudes.to_vector() != c.amplitudes.to_vector());
  }
}

TEST_CASE("mix_series: series equal a direct evaluation of Algorithms 1 and 2") {
  // Recomputes x_l(t) = sum_i delta_li sum_j a_ij g_j(u_t) + sum_i b_li from the stored draws
  // with the paper's formulas written out here (t = 1..T, u = (t - T/2) / (T/2)).
  const int64_t n = 50, t = 176, k = 5;
  for (MixKind kind : {MixKind::Sin, MixKind::Poly}) {
    const int64_t d = kind == MixKind::Sin ? 15 : 5;
    MixSeries ds = make_mix_series(kind, {.size = n, .terms = d, .seed = 11});
    std::vector<double> a = ds.amplitudes.to_vector(), rate = ds.rates.to_vector(), bias = ds.biases.to_vector();
    std::vector<double> f, th;
    if (kind == MixKind::Sin) f = ds.freqs.to_vector(), th = ds.phases.to_vector();
    std::vector<double> expected(n * t);
    for (int64_t l = 0; l < n; ++l)
      for (int64_t s = 1; s <= t; ++s) {
        double u = (s - 0.5 * t) / (0.5 * t), x = 0.0;
        for (int64_t i = 0; i < k; ++i) {
          double c = 0.0;
          for (int64_t j = 1; j <= d; ++j)
            c += a[i * d + j - 1] * (kind == MixKind::Sin
                                         ? std::sin(2 * M_PI * f[j - 1] * u + 2 * M_PI * th[i * d + j - 1])
                                         : std::pow(u, static_cast<double>(j)));
          x += rate[l * k + i] * c + bias[l * k + i];
        }
        expected[l * t + s - 1] = x;
      }
    // float32 storage: relative rounding 6e-8 of values of order 1.
    CHECK(allclose(ds.series, d64(expected, {n, t, 1}), 1e-6, 1e-6));
  }
}

TEST_CASE("mix_series: parameter ranges of the paper and of the released code") {
  MixSeries p = make_mix_series(MixKind::Sin, {.size = 10, .seed = 5});
  for (double f : p.freqs.to_vector()) CHECK((f >= 0.1 && f <= 3.0));
  for (double v : p.amplitudes.to_vector()) CHECK(std::fabs(v) <= 1.0);
  std::vector<double> ph = p.phases.to_vector();
  for (int64_t i = 1; i < 5; ++i)
    for (int64_t j = 0; j < 15; ++j) CHECK(ph[i * 15 + j] == ph[j]);  // Alg. 1 shares theta_j over components
  for (double v : ph) CHECK(std::fabs(v) <= 1.0);

  MixSeries r = make_mix_series(MixKind::Sin, {.size = 10, .seed = 5, .variant = MixVariant::ReleasedCode});
  for (double f : r.freqs.to_vector()) {
    double tenths = f * 10.0;
    CHECK(std::fabs(tenths - std::round(tenths)) < 1e-9);  // randint(1, 30) * 0.1
    CHECK((tenths > 0.5 && tenths < 29.5));
  }
  std::vector<double> rp = r.phases.to_vector();
  CHECK(!std::equal(rp.begin() + 15, rp.begin() + 30, rp.begin()));  // a phase per (component, sine)

  std::vector<double> up = mix_time_axis(176).to_vector(),
                      ur = mix_time_axis(176, MixVariant::ReleasedCode).to_vector();
  CHECK(up.front() == doctest::Approx(-1.0 + 2.0 / 176));
  CHECK(up.back() == 1.0);
  CHECK(ur.front() == -1.0);
  CHECK(ur.back() == doctest::Approx(1.0 - 2.0 / 176));
}

TEST_CASE("mix_series: rates, biases and the series' second moment match N(0, 0.1^2) mixing") {
  MixSeries ds = make_mix_series(MixKind::Sin, {.seed = 21});
  check_normal_draws(ds.rates.to_vector(), 0.1);
  check_normal_draws(ds.biases.to_vector(), 0.1);
  // a_ij ~ U[-1, 1]: E a = 0 (sd of a draw 1/sqrt 3), E a^2 = 1/3 (sd of a^2: sqrt(1/5 - 1/9)).
  std::vector<double> a = ds.amplitudes.to_vector(), a2;
  for (double v : a) a2.push_back(v * v);
  const double na = static_cast<double>(a.size());
  CHECK(std::fabs(mean_of(a)) < 5.0 * std::sqrt(1.0 / 3.0 / na));
  CHECK(std::fabs(mean_of(a2) - 1.0 / 3.0) < 5.0 * std::sqrt((1.0 / 5.0 - 1.0 / 9.0) / na));

  // Given the curves, x_l(t) = w(t) . g_l with g_l = (delta_l, b_l) ~ N(0, s^2 I_2K) and
  // w(t) = (c_1(t)..c_K(t), 1..1). q_l = (1/T) sum_t x_l(t)^2 = g' M g / T, M = sum_t w w':
  // E q = s^2 tr(M) / T, Var q = 2 s^4 tr(M^2) / T^2 (Gaussian quadratic form); the mean of
  // N independent q_l must fall within 5 standard errors.
  const int64_t n = 4000, t = 176, k = 5, m = 2 * k;
  const double s2 = 0.01;
  std::vector<double> c = ds.curves.to_vector(), x = ds.series.to_vector();
  std::vector<double> mm(m * m, 0.0);
  for (int64_t s = 0; s < t; ++s) {
    std::vector<double> w(m, 1.0);
    for (int64_t i = 0; i < k; ++i) w[i] = c[i * t + s];
    for (int64_t p = 0; p < m; ++p)
      for (int64_t q = 0; q < m; ++q) mm[p * m + q] += w[p] * w[q];
  }
  double tr = 0.0, tr2 = 0.0;
  for (int64_t p = 0; p < m; ++p) {
    tr += mm[p * m + p];
    for (int64_t q = 0; q < m; ++q) tr2 += mm[p * m + q] * mm[q * m + p];
  }
  const double expected = s2 * tr / t, se = std::sqrt(2.0 * s2 * s2 * tr2 / (t * t) / n);
  double mean_sq = 0.0;
  for (double v : x) mean_sq += v * v;
  mean_sq /= static_cast<double>(n * t);
  CHECK(std::fabs(mean_sq - expected) < 5.0 * se);
  CHECK(se < 0.1 * expected);  // the check has teeth
}

TEST_CASE("mix_series: a sine curve's DFT has its energy at bins 2 f") {
  // Over T samples u spans a window of length 2, so sin(2 pi f u + phase) makes 2 f cycles:
  // for integer 2 f all energy sits at bins 2 f and T - 2 f with |X| = T |a| / 2.
  const int64_t t = 176;
  Tensor curves =
      mix_sin_curves(d64({2.0, 5.0}, {2}), d64({0.3, -0.7}, {1, 2}), d64({0.8, -0.5}, {1, 2}), mix_time_axis(t));
  std::vector<double> c = curves.to_vector();
  std::vector<std::complex<double>> z(c.begin(), c.end());
  dft_inplace(z);
  for (int64_t b = 0; b <= t / 2; ++b) {
    double mag = std::abs(z[b]);
    if (b == 4)
      CHECK(mag == doctest::Approx(t * 0.8 / 2).epsilon(1e-9));
    else if (b == 10)
      CHECK(mag == doctest::Approx(t * 0.5 / 2).epsilon(1e-9));
    else
      CHECK(mag < 1e-9 * t);
  }
}

TEST_CASE("mix_series: polynomial curves by hand") {
  // c(u) = 1 u - 2 u^3 + 0.5 u^5 at u = -1, 0.5, 1.
  Tensor c = mix_poly_curves(d64({1, 0, -2, 0, 0.5}, {1, 5}), d64({-1.0, 0.5, 1.0}, {3}));
  CHECK(allclose(c, d64({-1 + 2 - 0.5, 0.5 - 0.25 + 0.015625, 1 - 2 + 0.5}, {1, 3}), 0, 1e-15));
}

TEST_CASE("mix_series: next-step pairs and their dataset") {
  MixSeries ds = make_mix_series(MixKind::Poly, {.size = 20, .terms = 5, .seed = 2});
  Example p = next_step_pairs(ds.series);
  CHECK(p.input.shape() == Shape{20, 175, 1});
  CHECK(p.target.shape() == Shape{20, 175, 1});
  CHECK(p.input.dtype() == DType::Float32);
  std::vector<double> x = ds.series.to_vector(), in = p.input.to_vector(), tg = p.target.to_vector();
  for (int64_t l = 0; l < 20; ++l)
    for (int64_t s = 0; s < 175; ++s) {
      REQUIRE(in[l * 175 + s] == x[l * 176 + s]);
      REQUIRE(tg[l * 175 + s] == x[l * 176 + s + 1]);
    }
  auto set = next_step_dataset(ds.train);
  CHECK(set->size() == 16);
  Example e = set->get(3);
  CHECK(e.input.shape() == Shape{175, 1});
  CHECK(e.target.to_vector()[0] == x[3 * 176 + 1]);
  CHECK(throws_with([] { next_step_pairs(zeros({4, 1, 1})); }, {"[next_step_pairs]", "(4, 1, 1)"}));
}

TEST_CASE("mix_series: bad options name the function and the value") {
  auto bad = [](MixKind kind, MixSeriesOptions o, std::vector<std::string> frags) {
    frags.insert(frags.begin(), "[make_mix_series]");
    CHECK(throws_with([&] { make_mix_series(kind, o); }, frags));
  };
  bad(MixKind::Sin, {.components = 0}, {"components", "got 0"});
  bad(MixKind::Sin, {.length = 1}, {"length", "got 1"});
  bad(MixKind::Sin, {.terms = 0}, {"terms", "got 0"});
  bad(MixKind::Poly, {.terms = 7}, {"degree", "5, 10 or 15", "got 7"});
  bad(MixKind::Poly, {.terms = 15, .train_fraction = 1.0}, {"train_fraction", "got 1"});
  bad(MixKind::Sin, {.train_fraction = 0.0}, {"train_fraction", "got 0"});
  bad(MixKind::Sin, {.train_fraction = -0.2}, {"train_fraction", "got -0.2"});
  bad(MixKind::Sin, {.size = 3, .train_fraction = 0.9}, {"empty split"});
  bad(MixKind::Sin, {.mix_std = 0.0}, {"mix_std"});
  CHECK(throws_with([] { parse_mix_kind("mix-cos"); }, {"[parse_mix_kind]", "mix-cos"}));
  CHECK(parse_mix_kind("mix-poly") == MixKind::Poly);
  CHECK(mix_kind_name(parse_mix_kind("sin")) == "mix-sin");
}
