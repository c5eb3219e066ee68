// Density metrics (nn/density_metrics.h) against hand values, and the smoothness metric's
// validation from the Fourier head paper's Appendix B (square waves, coloured noise, Table 4).
#include <cmath>
#include <complex>

#include "harmonic/data/smoothness_signals.h"
#include "harmonic/nn/density_metrics.h"
#include "harmonic/ops/dft.h"
#include "tests/helpers.h"

using namespace hm;
using hm::data::coloured_noise_pmf;
using hm::data::square_wave_pmf;
using namespace hm::test;

namespace {

Tensor d64(std::initializer_list<double> v, const Shape& shape = {}) {
  return tensor(v, shape, {.dtype = DType::Float64});
}
Tensor d64(const std::vector<double>& v, const Shape& shape) { return from_vector(v, shape, {.dtype = DType::Float64}); }

// Definition 3.2 spelled out with the filter: the reference for the frequency-domain version.
double smoothness_direct(const Tensor& row, int64_t max_sigma, nn::SmoothnessNorm norm = nn::SmoothnessNorm::L2) {
  double total = 0.0;
  for (int64_t s = 1; s <= max_sigma; ++s) {
    std::vector<double> y = row.to_vector(), g = nn::circular_gaussian_filter(row, double(s)).to_vector();
    double sq = 0.0, abs = 0.0;
    for (size_t i = 0; i < y.size(); ++i) sq += (y[i] - g[i]) * (y[i] - g[i]), abs += std::fabs(y[i] - g[i]);
    total += 6.0 / (M_PI * M_PI * s * s) * (norm == nn::SmoothnessNorm::L2 ? std::sqrt(sq) : abs);
  }
  return total;
}

}  // namespace

TEST_CASE("density_metrics: dft_inplace matches the naive DFT (radix-2 and Bluestein lengths)") {
  for (int64_t m : {1, 2, 7, 8, 50, 64, 243}) {
    CAPTURE(m);
    Generator gen(static_cast<uint64_t>(m));
    std::vector<double> re = randn({m}, {.dtype = DType::Float64}, &gen).to_vector();
    std::vector<double> im = randn({m}, {.dtype = DType::Float64}, &gen).to_vector();
    std::vector<std::complex<double>> x(m), naive(m);
    for (int64_t j = 0; j < m; ++j) x[j] = {re[j], im[j]};
    for (int64_t k = 0; k < m; ++k)
      for (int64_t j = 0; j < m; ++j) naive[k] += x[j] * std::polar(1.0, -2.0 * M_PI * double((j * k) % m) / m);
    std::vector<std::complex<double>> f = x;
    dft_inplace(f);
    double err = 0.0, back_err = 0.0;
    for (int64_t k = 0; k < m; ++k) err = std::max(err, std::abs(f[k] - naive[k]));
    dft_inplace(f, true);
    for (int64_t k = 0; k < m; ++k) back_err = std::max(back_err, std::abs(f[k] - x[k]));
    CHECK(err < 1e-11 * m);
    CHECK(back_err < 1e-12 * m);
  }
}

TEST_CASE("density_metrics: kl_divergence hand values, batching, errors") {
  // KL([.5, .5] || [.25, .75]) = .5 ln 2 + .5 ln(2/3).
  CHECK(allclose(nn::kl_divergence(d64({0.5, 0.5}), d64({0.25, 0.75})), {0.5 * std::log(2.0) + 0.5 * std::log(2.0 / 3)},
                 1e-12, 0));
  CHECK(nn::kl_divergence(d64({0.5, 0.5}), d64({0.25, 0.75})).shape() == Shape{});
  // p = 0 terms vanish; q = 0 where p > 0 is clamped at 1e-30 (finite, large).
  CHECK(allclose(nn::kl_divergence(d64({1.0, 0.0}), d64({0.5, 0.5})), {std::log(2.0)}, 1e-12, 0));
  CHECK(allclose(nn::kl_divergence(d64({0.5, 0.5}), d64({1.0, 0.0})), {0.5 * std::log(0.5) + 0.5 * std::log(0.5e30)},
                 1e-12, 0));
  // Batched (2, 3, 4) -> (2, 3); KL(p || p) = 0, and a float32 q is accepted.
  Generator gen(1);
  Tensor p = softmax(randn({2, 3, 4}, {.dtype = DType::Float64}, &gen), -1);
  Tensor q = softmax(randn({2, 3, 4}, {.dtype = DType::Float64}, &gen), -1);
  Tensor kl = nn::kl_divergence(p, q);
  CHECK(kl.shape() == Shape{2, 3});
  CHECK(kl.dtype() == DType::Float64);
  std::vector<double> pv = p.to_vector(), qv = q.to_vector(), kv = kl.to_vector();
  for (int r = 0; r < 6; ++r) {
    double ref = 0.0;
    for (int j = 0; j < 4; ++j) ref += pv[r * 4 + j] * std::log(pv[r * 4 + j] / qv[r * 4 + j]);
    CHECK(kv[r] == doctest::Approx(ref).epsilon(1e-12));
    CHECK(kv[r] > 0.0);
  }
  CHECK(allclose(nn::kl_divergence(p, p), std::vector<double>(6, 0.0), 0, 1e-15));
  CHECK(allclose(nn::kl_divergence(p, q.to(DType::Float32)), kl, 1e-5, 1e-7));
  CHECK(throws_with([&] { nn::kl_divergence(p, d64({0.5, 0.5})); }, {"[kl_divergence]", "(2, 3, 4)", "(2,)"}));
  CHECK(throws_with([] { nn::kl_divergence(d64({1.5, -0.5}), d64({0.5, 0.5})); },
                    {"[kl_divergence]", "non-negative", "-0.5"}));
  CHECK(throws_with([] { nn::kl_divergence(arange(2), d64({0.5, 0.5})); }, {"[kl_divergence]", "int64"}));
}

TEST_CASE("density_metrics: circular_gaussian_filter of a delta, a constant, a shift") {
  // m = 5, sigma = 1: the radius-4 kernel folds r = 1 and r = -4 (and so on) onto one offset.
  // A delta at 0 gives out_i = k_{-i mod 5}.
  const double T = 1 + 2 * (std::exp(-0.5) + std::exp(-2.0) + std::exp(-4.5) + std::exp(-8.0));
  const double k1 = (std::exp(-0.5) + std::exp(-8.0)) / T, k2 = (std::exp(-2.0) + std::exp(-4.5)) / T;
  CHECK(allclose(nn::circular_gaussian_filter(d64({1, 0, 0, 0, 0}), 1.0), {1 / T, k1, k2, k2, k1}, 1e-12, 0));
  // A constant is unchanged; mass is preserved; shapes (..., m) batch over the front.
  CHECK(allclose(nn::circular_gaussian_filter(full({2, 3, 6}, 0.25, {.dtype = DType::Float64}), 3.0),
                 std::vector<double>(36, 0.25), 1e-12, 0));
  Generator gen(2);
  Tensor y = rand({4, 9}, {.dtype = DType::Float64}, &gen);
  Tensor g = nn::circular_gaussian_filter(y, 2.5);
  CHECK(g.shape() == Shape{4, 9});
  CHECK(allclose(hm::sum(g, {1}), hm::sum(y, {1}), 1e-12, 0));
  // Circular: filtering commutes with a rotation of the row.
  std::vector<double> yv = y.to_vector(), rolled(36), gv = g.to_vector(), groll(36);
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 9; ++i) rolled[r * 9 + (i + 2) % 9] = yv[r * 9 + i], groll[r * 9 + (i + 2) % 9] = gv[r * 9 + i];
  CHECK(allclose(nn::circular_gaussian_filter(d64(rolled, {4, 9}), 2.5), d64(groll, {4, 9}), 1e-12, 1e-15));
  CHECK(throws_with([&] { nn::circular_gaussian_filter(y, 0.0); }, {"[circular_gaussian_filter]", "sigma", "0"}));
  CHECK(throws_with([] { nn::circular_gaussian_filter(Tensor(), 1.0); }, {"[circular_gaussian_filter]", "undefined"}));
}

TEST_CASE("density_metrics: smoothness equals Definition 3.2 computed directly") {
  // A constant (the uniform pmf) is perfectly smooth.
  CHECK(allclose(nn::smoothness(full({3, 50}, 0.02, {.dtype = DType::Float64})), {0, 0, 0}, 0, 1e-15));
  Generator gen(3);
  for (int64_t m : {2, 7, 50, 64}) {
    CAPTURE(m);
    Tensor y = softmax(mul(randn({3, m}, {.dtype = DType::Float64}, &gen), 2.0), -1);
    for (int64_t max_sigma : {1, 5, 100}) {
      std::vector<double> got = nn::smoothness(y, max_sigma).to_vector();
      std::vector<double> got_l1 = nn::smoothness(y, max_sigma, nn::SmoothnessNorm::L1).to_vector();
      for (int64_t r = 0; r < 3; ++r) {
        CHECK(got[r] == doctest::Approx(smoothness_direct(select(y, 0, r), max_sigma)).epsilon(1e-10));
        CHECK(got_l1[r] ==
              doctest::Approx(smoothness_direct(select(y, 0, r), max_sigma, nn::SmoothnessNorm::L1)).epsilon(1e-10));
      }
    }
  }
  // Hand value, m = 2, max_sigma = 1: k = (1, 2 e^-1/2) / (1 + 2 e^-1/2) so y - G y for
  // y = (1, 0) is (1 - k0, -k1) and its norm is sqrt(2) k1.
  const double k1 = 2 * std::exp(-0.5) / (1 + 2 * std::exp(-0.5));
  CHECK(allclose(nn::smoothness(d64({1.0, 0.0}), 1), {6 / (M_PI * M_PI) * std::sqrt(2.0) * k1}, 1e-12, 0));
  // Homogeneous of degree 1, shape (..., m) -> (...), float32 accepted.
  Tensor y = softmax(randn({2, 2, 50}, {.dtype = DType::Float64}, &gen), -1);
  Tensor s = nn::smoothness(y);
  CHECK(s.shape() == Shape{2, 2});
  CHECK(allclose(nn::smoothness(mul(y, 3.0)), mul(s, 3.0), 1e-12, 0));
  CHECK(allclose(nn::smoothness(y.to(DType::Float32)), s, 1e-5, 0));
  CHECK(throws_with([&] { nn::smoothness(y, 0); }, {"[smoothness]", "max_sigma", "0"}));
  CHECK(throws_with([] { nn::smoothness(d64({0.5, NAN})); }, {"[smoothness]", "nan"}));
}

TEST_CASE("density_metrics: smoothness grows monotonically with square-wave terms (Appendix B)") {
  // The paper plots 1..100 sine terms at a 2048 Hz sample rate (one period = 2048 samples
  // here; monotone up to at least 300 terms). At m = 50, the toy study's bin count, it is
  // monotone up to 9 terms (highest harmonic 17) and then decreases slightly: harmonics near
  // Nyquist (2k - 1 = 19..23 of 25) are sampled too coarsely to add visible jaggedness, a
  // property of the discretisation, not of the metric (at m = 200 the same happens past
  // harmonic ~75).
  for (auto entry : {std::pair<int64_t, int64_t>{2048, 100}, {50, 9}}) {
    auto& m = std::get<0>(entry);
    auto& max_terms = std::get<1>(entry);
    CAPTURE(m);
    std::vector<double> rows;
    for (int64_t k = 1; k <= max_terms; ++k)
      for (double v : square_wave_pmf(k, m)) rows.push_back(v);
    std::vector<double> s = nn::smoothness(d64(rows, {max_terms, m})).to_vector();
    bool increasing = true;
    for (int64_t k = 1; k < max_terms; ++k) increasing &= s[k] > s[k - 1];
    CHECK(increasing);
    MESSAGE("m = " << m << ": 1 term " << s[0] << ", 2 terms " << s[1] << ", " << max_terms << " terms "
                   << s[max_terms - 1]);
  }
}

TEST_CASE("density_metrics: smoothness orders coloured noise as Table 4 (brown < pink < white < blue)") {
  // Table 4 (1000 trials): 0.0003 +- 0.0001, 0.0017 +- 0.0002, 0.0034 +- 0.0003,
  // 0.0038 +- 0.0003. Scanning the signal length t (100 trials each, seed 0) gave
  //   t =   50: .0234 .0370 .0495 .0562     t = 2048: .00051 .00266 .00503 .00572
  //   t = 1000: .00106 .00433 .00769 .00878 t = 4096: .00026 .00173 .00335 .00379
  //   t = 8192: .00013 .00111 .00224 .00255
  // so the paper's signals were 4096 samples long (means and spreads both match there).
  // Here 100 trials of t = 4096, the four colours shaped from the same white draws (paired,
  // and a quarter of the random draws and forward DFTs); the means must match the table to
  // within 1e-4 (its rounding is +-5e-5, our sampling error <= 3e-5) and so must the spreads.
  const int64_t t = 4096, trials = 100;
  const double table_mean[] = {0.0003, 0.0017, 0.0034, 0.0038}, table_sd[] = {0.0001, 0.0002, 0.0003, 0.0003};
  const std::string names[] = {"brown", "pink", "white", "blue"};
  Generator gen(1234);
  std::vector<double> white = randn({trials, t}, {.dtype = DType::Float64}, &gen).to_vector();
  std::vector<std::vector<double>> rows(4);
  for (int64_t i = 0; i < trials; ++i) {
    std::vector<std::complex<double>> spectrum(white.begin() + i * t, white.begin() + (i + 1) * t);
    dft_inplace(spectrum);
    for (int c = 0; c < 4; ++c)
      for (double v : coloured_noise_pmf(spectrum, data::kNoiseColours[c])) rows[c].push_back(v);
  }
  double means[4];
  for (int c = 0; c < 4; ++c) {
    std::vector<double> s = nn::smoothness(d64(rows[c], {trials, t})).to_vector();
    double mu = 0.0, var = 0.0;
    for (double v : s) mu += v / trials;
    for (double v : s) var += (v - mu) * (v - mu) / (trials - 1);
    means[c] = mu;
    MESSAGE(names[c] << ": " << mu << " +- " << std::sqrt(var) << " (Table 4: " << table_mean[c] << " +- "
                     << table_sd[c] << ")");
    CHECK(std::fabs(mu - table_mean[c]) < 1e-4);
    CHECK(std::fabs(std::sqrt(var) - table_sd[c]) < 1e-4);
  }
  CHECK(means[0] < means[1]);
  CHECK(means[1] < means[2]);
  CHECK(means[2] < means[3]);
}

TEST_CASE("density_metrics: spectral_entropy of pure tones, flat spectra and coloured noise") {
  // One tone above DC holds all the power: entropy 0; a constant row has none: 0 by definition.
  const int64_t m = 64;
  std::vector<double> tone(m), spike(m, 0.0);
  for (int64_t j = 0; j < m; ++j) tone[j] = 1.0 + std::cos(2 * M_PI * 5 * j / m);
  spike[0] = 1.0;  // a delta: every frequency the same power, entropy log2(m/2) / log2(m/2) = 1
  CHECK(nn::spectral_entropy(d64(tone, {m})).item<double>() == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(nn::spectral_entropy(full({2, m}, 0.5, {.dtype = DType::Float64})).to_vector() == std::vector<double>{0, 0});
  CHECK(nn::spectral_entropy(d64(spike, {m})).item<double>() == doctest::Approx(1.0).epsilon(1e-12));
  // Brown noise concentrates its power at low frequencies and white spreads it: white is
  // near 1, blue below it (Table 4's point: the entropy does not rise from white to blue).
  Generator gen(7);
  std::vector<double> white = randn({4096}, {.dtype = DType::Float64}, &gen).to_vector();
  std::vector<std::complex<double>> spectrum(white.begin(), white.end());
  dft_inplace(spectrum);
  double h[4];
  for (int c = 0; c < 4; ++c)
    h[c] = nn::spectral_entropy(d64(coloured_noise_pmf(spectrum, data::kNoiseColours[c]), {4096})).item<double>();
  CHECK(h[0] < h[1]);
  CHECK(h[1] < h[2]);
  CHECK(h[3] < h[2]);
  CHECK(h[2] > 0.9);
  CHECK(throws_with([] { nn::spectral_entropy(d64({0.5, 0.5})); }, {"[spectral_entropy]", "m >= 4"}));
}

TEST_CASE("density_metrics: expected_bin_mse hand example, rounding, errors") {
  // m = 4, centres -.75, -.25, .25, .75. Row 0: expectation 2 = target. Row 1: expectation
  // 1.5 rounds (half to even) to 2, target 0: (0.25 + 0.75)^2 = 1. Row 2: 1.5 -> 2 vs target 3:
  // 0.25. Row 3 is unnormalised mass on bin 0, target 1: 0.25.
  Tensor pmf = d64({0, 0, 1, 0, 0.5, 0, 0, 0.5, 0.25, 0.25, 0.25, 0.25, 2, 0, 0, 0}, {4, 4});
  Tensor target = from_vector(std::vector<int64_t>{2, 0, 3, 1}, {4});
  CHECK(nn::expected_bin_mse(pmf, target) == doctest::Approx((0 + 1 + 0.25 + 0.25) / 4.0).epsilon(1e-14));
  // Expectation 2.5 rounds to 2 (even), 0.6 to 1.
  Tensor pmf2 = d64({0, 0, 0.5, 0.5, 0.4, 0.6, 0, 0}, {2, 4});
  CHECK(nn::expected_bin_mse(pmf2, from_vector(std::vector<int64_t>{2, 1}, {2})) == 0.0);
  CHECK(throws_with([&] { nn::expected_bin_mse(pmf, from_vector(std::vector<int64_t>{2, 0, 4, 1}, {4})); },
                    {"[expected_bin_mse]", "target bin 4", "[0, 4)"}));
  CHECK(throws_with([&] { nn::expected_bin_mse(pmf, from_vector(std::vector<int64_t>{2, 0}, {2})); },
                    {"[expected_bin_mse]", "(4, 4)", "(2,)"}));
  CHECK(throws_with([&] { nn::expected_bin_mse(pmf, d64({2, 0, 3, 1})); }, {"[expected_bin_mse]", "int64"}));
  CHECK(throws_with([&] { nn::expected_bin_mse(zeros({1, 4}, {.dtype = DType::Float64}), from_vector(std::vector<int64_t>{0}, {1})); },
                    {"[expected_bin_mse]", "zero mass"}));
}

TEST_CASE("density_metrics: perplexity") {
  CHECK(nn::perplexity(d64({std::log(2.0), std::log(8.0)})) == doctest::Approx(4.0).epsilon(1e-14));
  // A uniform guess over 50 bins has perplexity 50; float32 input is accepted.
  CHECK(nn::perplexity(full({10}, std::log(50.0))) == doctest::Approx(50.0).epsilon(1e-6));
  CHECK(throws_with([] { nn::perplexity(zeros({0})); }, {"[perplexity]", "non-empty"}));
  CHECK(throws_with([] { nn::perplexity(d64({1.0, INFINITY})); }, {"[perplexity]", "inf"}));
}
