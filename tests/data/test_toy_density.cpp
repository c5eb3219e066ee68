// The Fourier head paper's toy datasets (data/toy_density.h): shapes, determinism, the
// statistics of each conditional distribution, and the closed-form true density.
#include <cmath>
#include <numeric>

#include "harmonic/data/toy_density.h"
#include "harmonic/ops/fourier_head.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using namespace hm::test;

namespace {

const ToyDistribution kAll[] = {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta};

// float64 tensors (tensor() defaults to float32, which would blur the hand values).
Tensor d64(std::initializer_list<double> v, const Shape& shape = {}) {
  return tensor(v, shape, {.dtype = DType::Float64});
}

double mean_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

// All n triples of a dataset, train then test (the order they were drawn in).
struct Triples {
  std::vector<double> x, y, z;
};
Triples all_triples(const ToyDensityDataset& ds) {
  Triples t;
  for (const ToyDensitySplit* s : {&ds.train, &ds.test}) {
    for (double v : s->x.to_vector()) t.x.push_back(v);
    for (double v : s->y.to_vector()) t.y.push_back(v);
    for (double v : s->z.to_vector()) t.z.push_back(v);
  }
  return t;
}

}  // namespace

TEST_CASE("toy_density: sizes, 80/20 split, dtypes and input encodings") {
  for (ToyDistribution kind : kAll) {
    CAPTURE(toy_distribution_name(kind));
    ToyDensityDataset ds = make_toy_density(kind, 1);
    CHECK(ds.kind == kind);
    const int64_t counts[] = {4000, 1000};
    int i = 0;
    for (const ToyDensitySplit* s : {&ds.train, &ds.test}) {
      const int64_t n = counts[i++];
      CHECK(s->x.shape() == Shape{n});
      CHECK(s->y.shape() == Shape{n});
      CHECK(s->z.shape() == Shape{n});
      CHECK(s->x.dtype() == DType::Float64);
      CHECK(s->z.dtype() == DType::Float64);
      CHECK(s->bin_inputs.shape() == Shape{n, 2});
      CHECK(s->bin_inputs.dtype() == DType::Float32);
      CHECK(s->raw_inputs.shape() == Shape{n, 2});
      CHECK(s->raw_inputs.dtype() == DType::Float32);
      CHECK(s->target_bins.shape() == Shape{n});
      CHECK(s->target_bins.dtype() == DType::Int64);
      CHECK(s->true_pmf.shape() == Shape{n, 50});
      CHECK(s->true_pmf.dtype() == DType::Float64);
      // Inputs: bin indices of x and y as floats (0..49) and the raw values.
      std::vector<double> xb = quantize_to_bins(s->x, 50).to_vector(), yb = quantize_to_bins(s->y, 50).to_vector();
      std::vector<double> bin_in = s->bin_inputs.to_vector(), raw_in = s->raw_inputs.to_vector();
      std::vector<double> x = s->x.to_vector(), y = s->y.to_vector();
      std::vector<int64_t> tb = s->target_bins.to_vector_as<int64_t>();
      std::vector<int64_t> zb = quantize_to_bins(s->z, 50).to_vector_as<int64_t>();
      bool inputs_ok = true, bins_ok = true;
      for (int64_t k = 0; k < n; ++k) {
        inputs_ok &= bin_in[2 * k] == xb[k] && bin_in[2 * k + 1] == yb[k];
        inputs_ok &= raw_in[2 * k] == static_cast<float>(x[k]) && raw_in[2 * k + 1] == static_cast<float>(y[k]);
        bins_ok &= tb[k] == zb[k] && tb[k] >= 0 && tb[k] < 50 && xb[k] >= 0 && xb[k] < 50;
      }
      CHECK(inputs_ok);
      CHECK(bins_ok);
    }
    // x is uniform on I = [-0.8, 0.8].
    Triples t = all_triples(ds);
    CHECK(*std::min_element(t.x.begin(), t.x.end()) >= -0.8);
    CHECK(*std::max_element(t.x.begin(), t.x.end()) <= 0.8);
    CHECK(std::fabs(mean_of(t.x)) < 0.03);  // sd of the mean: 0.46 / sqrt(5000) = 0.0065
  }
  ToyDensityDataset small = make_toy_density(ToyDistribution::Gaussian, 3, {.size = 10, .bins = 8, .train_fraction = 0.7});
  CHECK(small.train.x.shape() == Shape{7});
  CHECK(small.test.true_pmf.shape() == Shape{3, 8});
}

TEST_CASE("toy_density: deterministic per seed, different across seeds") {
  for (ToyDistribution kind : kAll) {
    CAPTURE(toy_distribution_name(kind));
    ToyDensityDataset a = make_toy_density(kind, 7), b = make_toy_density(kind, 7), c = make_toy_density(kind, 8);
    CHECK(a.train.z.to_vector() == b.train.z.to_vector());
    CHECK(a.test.y.to_vector() == b.test.y.to_vector());
    CHECK(a.test.true_pmf.to_vector() == b.test.true_pmf.to_vector());
    CHECK(a.train.bin_inputs.to_vector() == b.train.bin_inputs.to_vector());
    CHECK(a.train.x.to_vector() != c.train.x.to_vector());
    CHECK(a.train.z.to_vector() != c.train.z.to_vector());
  }
}

TEST_CASE("toy_density: gaussian statistics (y ~ N(x, 0.01), z ~ N(y, 0.01))") {
  Triples t = all_triples(make_toy_density(ToyDistribution::Gaussian, 2));
  std::vector<double> dy, dz;
  for (size_t i = 0; i < t.x.size(); ++i) dy.push_back(t.y[i] - t.x[i]), dz.push_back(t.z[i] - t.y[i]);
  for (const auto& d : {dy, dz}) {
    double mu = mean_of(d), var = 0;
    for (double v : d) var += (v - mu) * (v - mu);
    var /= static_cast<double>(d.size() - 1);
    // Standard errors with n = 5000: mean 0.0014, variance 0.01 * sqrt(2 / n) = 0.0002.
    CHECK(std::fabs(mu) < 0.006);
    CHECK(var == doctest::Approx(0.01).epsilon(0.08));
  }
  // z and x are correlated through y only: var(z - x) = 0.02.
  std::vector<double> dzx;
  for (size_t i = 0; i < t.x.size(); ++i) dzx.push_back(t.z[i] - t.x[i]);
  double var = 0;
  for (double v : dzx) var += v * v;
  CHECK(var / dzx.size() == doctest::Approx(0.02).epsilon(0.08));
}

TEST_CASE("toy_density: gmm2 statistics (x, y ~ U(I), z from the component at x or y)") {
  Triples t = all_triples(make_toy_density(ToyDistribution::GMM2, 3));
  double corr_xy = 0;
  int64_t separated = 0, near_x = 0;
  double resid2 = 0;
  for (size_t i = 0; i < t.x.size(); ++i) {
    corr_xy += t.x[i] * t.y[i];
    double dx = t.z[i] - t.x[i], dy = t.z[i] - t.y[i];
    CHECK(std::min(std::fabs(dx), std::fabs(dy)) < 0.5);  // 5 standard deviations
    if (std::fabs(t.x[i] - t.y[i]) > 0.8) {  // components 8 sd apart: the nearer one drew z
      ++separated;
      near_x += std::fabs(dx) < std::fabs(dy);
      resid2 += std::min(dx * dx, dy * dy);
    }
  }
  CHECK(std::fabs(corr_xy / t.x.size()) < 0.01);  // y is drawn independently of x
  REQUIRE(separated > 500);
  CHECK(static_cast<double>(near_x) / separated == doctest::Approx(0.5).epsilon(0.12));
  CHECK(resid2 / separated == doctest::Approx(0.01).epsilon(0.12));
}

TEST_CASE("toy_density: beta statistics (z = r * Beta(100|x|, 100|y|))") {
  Triples t = all_triples(make_toy_density(ToyDistribution::Beta, 4));
  const double n = static_cast<double>(t.x.size());
  int64_t positive = 0;
  double mean_err = 0, sq_err = 0, pred_var = 0;
  bool in_support = true;
  int64_t at_one = 0;
  for (size_t i = 0; i < t.x.size(); ++i) {
    double r = std::fabs(t.z[i]);
    // |z| = 1 exactly is possible in float64: Beta(a, b) with b < 1 (|y| < 0.01) puts its
    // mass within 1e-16 of 1. It quantises to the end bin like any value near 1.
    in_support &= r > 0.0 && r <= 1.0;
    at_one += r == 1.0;
    positive += t.z[i] > 0;
    double a = std::max(100 * std::fabs(t.x[i]), 1e-3), b = std::max(100 * std::fabs(t.y[i]), 1e-3);
    double mu = a / (a + b);
    mean_err += r - mu;
    sq_err += (r - mu) * (r - mu);
    pred_var += a * b / ((a + b) * (a + b) * (a + b + 1));
  }
  CHECK(in_support);
  CHECK(at_one < 30);
  CHECK(positive / n == doctest::Approx(0.5).epsilon(0.06));  // sd 0.007
  CHECK(std::fabs(mean_err / n) < 0.01);
  // E[(|z| - mu)^2] = the Beta variance: checks the Gamma sampler's spread, not only its mean.
  CHECK(sq_err / n == doctest::Approx(pred_var / n).epsilon(0.1));
}

TEST_CASE("toy_density: beta with tiny |x|, |y| stays finite (shapes clamped at 1e-3)") {
  ToyDensityDataset ds = make_toy_density(ToyDistribution::Beta, 5, {.size = 400, .variance = 1e-10, .low = -1e-4,
                                                                    .high = 1e-4});
  for (const ToyDensitySplit* s : {&ds.train, &ds.test}) {
    bool finite = true;
    for (double v : s->z.to_vector()) finite &= std::isfinite(v) && std::fabs(v) <= 1.0;
    for (double v : s->true_pmf.to_vector()) finite &= std::isfinite(v) && v >= 0.0;
    CHECK(finite);
    CHECK(allclose(hm::sum(s->true_pmf, {1}), std::vector<double>(s->x.numel(), 1.0), 1e-12, 1e-12));
  }
  // The density at exact zeros uses the clamped shapes: finite and positive inside (0, 1).
  Tensor p = toy_conditional_pdf(ToyDistribution::Beta, d64({0.0}), d64({0.0}), d64({0.5, -0.25}));
  for (double v : p.to_vector()) CHECK((std::isfinite(v) && v > 0.0));
}

TEST_CASE("toy_density: true pmf is the pdf at the bin centres, rows sum to 1") {
  Tensor centres = fourier_bin_centres(50).to(DType::Float64);
  for (ToyDistribution kind : kAll) {
    CAPTURE(toy_distribution_name(kind));
    ToyDensityDataset ds = make_toy_density(kind, 6, {.size = 500});
    const ToyDensitySplit& s = ds.test;
    CHECK(allclose(hm::sum(s.true_pmf, {1}), std::vector<double>(s.x.numel(), 1.0), 1e-12, 1e-12));
    Tensor pdf = toy_conditional_pdf(kind, s.x, s.y, centres);  // (n, 50)
    Tensor expected = div(pdf, hm::sum(pdf, {1}, true));
    CHECK(allclose(s.true_pmf, expected, 1e-9, 1e-12));
  }
}

TEST_CASE("toy_density: conditional pdf closed forms, integrates to 1, shapes") {
  // Hand values: Gaussian N(z; y, 0.01) at z = y is 1 / sqrt(2 pi 0.01).
  const double peak = 1.0 / std::sqrt(2.0 * M_PI * 0.01);
  CHECK(allclose(toy_conditional_pdf(ToyDistribution::Gaussian, d64({0.3}), d64({0.1}), d64({0.1, 0.2})),
                 {peak, peak * std::exp(-0.5)}, 1e-12, 0));
  CHECK(allclose(toy_conditional_pdf(ToyDistribution::GMM2, d64({0.3}), d64({-0.3}), d64({0.3})),
                 {0.5 * peak * (1.0 + std::exp(-18.0))}, 1e-12, 0));
  // Beta(50, 50) via x = y = 0.5: 0.5 * t^49 (1-t)^49 / B(50, 50) at t = 0.5; 0 outside (0, 1).
  double beta_half = 0.5 * std::exp(98 * std::log(0.5) - (2 * std::lgamma(50.0) - std::lgamma(100.0)));
  CHECK(allclose(toy_conditional_pdf(ToyDistribution::Beta, d64({0.5}), d64({-0.5}),
                                     d64({0.5, -0.5, 0.0, 1.0, -1.2})),
                 {beta_half, beta_half, 0, 0, 0}, 1e-10, 0));

  // Midpoint rule over [-2, 2] (Beta: the support (-1, 1)) for several conditioning pairs.
  const int64_t P = 40000;
  std::vector<double> grid(P);
  const double lo = -2.0, h = 4.0 / P;
  for (int64_t j = 0; j < P; ++j) grid[j] = lo + (j + 0.5) * h;
  Tensor x = d64({0.3, -0.7, 0.05, 0.8}), y = d64({0.35, 0.6, -0.2, 0.75});
  for (ToyDistribution kind : kAll) {
    CAPTURE(toy_distribution_name(kind));
    Tensor pdf = toy_conditional_pdf(kind, x, y, from_vector(grid, {P}, {.dtype = DType::Float64}));
    CHECK(pdf.shape() == Shape{4, P});
    CHECK(allclose(mul(hm::sum(pdf, {1}), h), {1, 1, 1, 1}, 1e-4, 0));
  }
  // z given per row (n, P) equals the shared form row by row.
  Tensor zs = d64({0.1, 0.2, -0.3, 0.4, 0.5, 0.6, 0.7, -0.8}, {4, 2});
  Tensor per_row = toy_conditional_pdf(ToyDistribution::GMM2, x, y, zs);
  Tensor row2 = toy_conditional_pdf(ToyDistribution::GMM2, d64({0.05}), d64({-0.2}), d64({0.5, 0.6}));
  CHECK(allclose(reshape(select(per_row, 0, 2), {1, 2}), row2, 1e-12, 0));

  CHECK(throws_with([&] { toy_conditional_pdf(ToyDistribution::Gaussian, x, d64({0.1}), d64({0.0})); },
                    {"[toy_conditional_pdf]", "(4,)", "(1,)"}));
  CHECK(throws_with([&] { toy_conditional_pdf(ToyDistribution::Gaussian, x, y, d64({0.0, 1.0}, {2, 1})); },
                    {"[toy_conditional_pdf]", "(2, 1)", "n = 4"}));
  CHECK(throws_with([&] { toy_conditional_pdf(ToyDistribution::Gaussian, x, y, d64({0.0}), 0.0); },
                    {"[toy_conditional_pdf]", "variance"}));
}

TEST_CASE("toy_density: quantize_to_bins hand values, clamping, dtypes, errors") {
  Tensor v = d64({-1.0, -0.95, -0.01, 0.0, 0.5, 0.99, 1.0, -3.0, 7.0}, {3, 3});
  Tensor b = quantize_to_bins(v, 50);
  CHECK(b.dtype() == DType::Int64);
  CHECK(b.shape() == Shape{3, 3});
  CHECK(b.to_vector() == std::vector<double>{0, 1, 24, 25, 37, 49, 49, 0, 49});
  CHECK(quantize_to_bins(tensor({-0.5f, 0.49f}, {}, {.dtype = DType::Float32}), 4).to_vector() ==
        std::vector<double>{1, 2});
  CHECK(throws_with([] { quantize_to_bins(arange(3), 50); }, {"[quantize_to_bins]", "int64"}));
  CHECK(throws_with([] { quantize_to_bins(tensor({NAN}), 50); }, {"[quantize_to_bins]", "NaN"}));
  CHECK(throws_with([] { quantize_to_bins(tensor({0.0}), 0); }, {"[quantize_to_bins]", "bins"}));
}

TEST_CASE("toy_density: names round-trip, bad options are rejected") {
  for (ToyDistribution kind : kAll) CHECK(parse_toy_distribution(toy_distribution_name(kind)) == kind);
  CHECK(parse_toy_distribution("gmm-2") == ToyDistribution::GMM2);
  CHECK(throws_with([] { parse_toy_distribution("cauchy"); }, {"[parse_toy_distribution]", "cauchy", "gaussian",
                                                               "gmm2", "beta"}));
  auto bad = [](ToyDensityOptions o, std::vector<std::string> frags) {
    frags.insert(frags.begin(), "[make_toy_density]");
    return throws_with([&] { make_toy_density(ToyDistribution::Gaussian, 1, o); }, frags);
  };
  CHECK(bad({.size = 1}, {"size", "1"}));
  CHECK(bad({.variance = 0.0}, {"variance"}));
  CHECK(bad({.low = 0.5, .high = 0.5}, {"interval"}));
  CHECK(bad({.bins = 1}, {"bins"}));
  CHECK(bad({.train_fraction = 1.0}, {"train_fraction"}));
  CHECK(bad({.size = 3, .train_fraction = 0.1}, {"empty split"}));
}
