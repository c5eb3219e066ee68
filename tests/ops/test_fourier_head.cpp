// Fourier head ops (ops/fourier_head.h) and layers (nn/fourier_head.h).
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <complex>
#include <doctest/doctest.h>
#include <numbers>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/data/series_tokenizer.h"
#include "harmonic/nn/fourier_head.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/fourier_head_kernels.h"
#include "harmonic/ops/fru_recurrence.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using hm::test::allclose;
using hm::test::leaf64;
using hm::test::throws_with;

namespace {

constexpr double kPi = std::numbers::pi;

// log(y + 1e-5) composed from plain ops with the complex-free formula:
// R = alpha cos(pi l b) + beta sin(pi l b), I = beta cos - alpha sin, y = q / sum q.
Tensor reference_log_pmf(const Tensor& coeffs, int64_t bins) {
  const int64_t n = coeffs.size(-1) / 2 - 1;
  Tensor b = fourier_bin_centres(bins).to(coeffs.dtype());                             // (m)
  Tensor l = arange(0.0, static_cast<double>(n + 1), 1.0, {.dtype = coeffs.dtype()});  // (N+1)
  Tensor ang = mul(unsqueeze(l, 1), unsqueeze(b, 0)) * kPi;                            // (N+1, m)
  Tensor alpha = narrow(coeffs, -1, 0, n + 1), beta = narrow(coeffs, -1, n + 1, n + 1);
  Tensor re = add(matmul(alpha, cos(ang)), matmul(beta, sin(ang)));
  Tensor im = sub(matmul(beta, cos(ang)), matmul(alpha, sin(ang)));
  Tensor q = add(square(re), square(im));
  return log(add(div(q, sum(q, {-1}, true)), 1e-5));
}

// The paper's autocorrelation form p(z) = 1/2 + Re(sum_k (c_k/c_0) e^{i pi k z}), one row.
double paper_pdf(const std::vector<double>& row, double z) {
  const int64_t n = static_cast<int64_t>(row.size()) / 2 - 1;
  std::vector<std::complex<double>> a(n + 1);
  for (int64_t l = 0; l <= n; ++l) a[l] = {row[l], row[n + 1 + l]};
  auto c = [&](int64_t k) {
    std::complex<double> s = 0;
    for (int64_t l = 0; l + k <= n; ++l) s += a[l] * std::conj(a[l + k]);
    return s;
  };
  std::complex<double> total = 0;
  for (int64_t k = 1; k <= n; ++k) total += c(k) / c(0) * std::exp(std::complex<double>(0, kPi * k * z));
  return 0.5 + total.real();
}

}  // namespace

TEST_CASE("fourier_head_log_pmf matches the composed reference and the autocorrelation form") {
  for (auto [n, m] : {std::pair<int64_t, int64_t>{1, 3}, {4, 10}, {12, 50}, {0, 4}, {2, 1}, {3, 2}}) {
    Generator gen(static_cast<uint64_t>(7 + n));
    Tensor c = randn({3, 2, 2 * (n + 1)}, {.dtype = DType::Float64}, &gen);
    Tensor out = fourier_head_log_pmf(c, m);
    CHECK(out.shape() == Shape{3, 2, m});
    CHECK(allclose(out, reference_log_pmf(c, m), 1e-10, 1e-12));
    Tensor c32 = c.to(DType::Float32);
    CHECK(allclose(fourier_head_log_pmf(c32, m), reference_log_pmf(c32, m).to(DType::Float64), 1e-4, 1e-5));
    // y_j vs the paper's p(b_j) normalised over the bins, in std::complex<double>.
    std::vector<double> cv = c.to_vector(), ov = out.to_vector();
    for (int64_t r = 0; r < 6; ++r) {
      std::vector<double> row(cv.begin() + r * 2 * (n + 1), cv.begin() + (r + 1) * 2 * (n + 1));
      std::vector<double> p(m);
      double total = 0;
      for (int64_t j = 0; j < m; ++j) total += p[j] = paper_pdf(row, -1.0 + (2.0 * j + 1) / m);
      for (int64_t j = 0; j < m; ++j)
        CHECK(std::exp(ov[r * m + j]) - 1e-5 == doctest::Approx(p[j] / total).epsilon(1e-9));
    }
  }
}

TEST_CASE("fourier_head_log_pmf is a pmf: sums to 1 and non-negative") {
  Generator gen(3);
  Tensor c = randn({16, 2 * 33}, {}, &gen);  // float32, N = 32
  Tensor y = sub(exp(fourier_head_log_pmf(c, 4096)), 1e-5);
  std::vector<double> v = y.to_vector();
  for (double x : v) CHECK(x >= -1e-7);
  CHECK(allclose(sum(y, {-1}), std::vector<double>(16, 1.0), 1e-4, 1e-4));
}

TEST_CASE("fourier_head_log_pmf gradcheck (float64, several shapes, non-contiguous)") {
  for (auto entry : {std::pair<int64_t, int64_t>{1, 3}, {3, 7}, {5, 16}}) {
    auto& n = std::get<0>(entry);
    auto& m = std::get<1>(entry);
    Tensor c = leaf64({2, 3, 2 * (n + 1)}, static_cast<uint64_t>(n));
    CHECK(gradcheck([m](const std::vector<Tensor>& x) { return fourier_head_log_pmf(x[0], m); }, {c}));
  }
  Tensor c1 = leaf64({6}, 11);  // a single row, no batch dims
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_head_log_pmf(x[0], 5); }, {c1}));
  Tensor t = leaf64({8, 4}, 12);  // used transposed: (4, 8) non-contiguous, N = 3
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_head_log_pmf(transpose(x[0], 0, 1), 9); }, {t}));
}

TEST_CASE("fourier_pdf: paper form, integrates to 1, gradcheck") {
  Generator gen(5);
  Tensor c = randn({2, 2 * 7}, {.dtype = DType::Float64}, &gen);  // N = 6
  const int64_t points = 10001;
  Tensor z = linspace(-1.0, 1.0, points, {.dtype = DType::Float64});
  Tensor p = fourier_pdf(c, z);  // (2, P)
  CHECK(p.shape() == Shape{2, points});
  std::vector<double> pv = p.to_vector(), cv = c.to_vector(), zv = z.to_vector();
  for (int64_t r = 0; r < 2; ++r) {
    double integral = 0;
    for (int64_t i = 0; i + 1 < points; ++i)
      integral += 0.5 * (pv[r * points + i] + pv[r * points + i + 1]) * (zv[i + 1] - zv[i]);
    CHECK(integral == doctest::Approx(1.0).epsilon(1e-6));
    std::vector<double> row(cv.begin() + r * 14, cv.begin() + (r + 1) * 14);
    for (int64_t i = 0; i < points; i += 997)
      CHECK(pv[r * points + i] == doctest::Approx(paper_pdf(row, zv[i])).epsilon(1e-10));
  }
  Tensor cc = leaf64({3, 8}, 21), zz = leaf64({3, 4}, 22, 0.5);  // per-row points
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_pdf(x[0], x[1]); }, {cc, zz}));
  Tensor zs = leaf64({5}, 23, 0.5);  // shared points
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_pdf(x[0], x[1]); }, {cc, zs}));
}

TEST_CASE("fourier_cdf: endpoints, derivative is the pdf, gradcheck") {
  Generator gen(9);
  Tensor c = randn({3, 2 * 5}, {.dtype = DType::Float64}, &gen);  // N = 4
  CHECK(allclose(fourier_cdf(c, tensor({-1.0, 1.0}, {2}, {.dtype = DType::Float64})),
                 std::vector<double>{0, 1, 0, 1, 0, 1}, 1e-12, 1e-12));
  Tensor z = tensor({-0.9, -0.3, 0.0, 0.41, 0.8}, {5}, {.dtype = DType::Float64});
  const double h = 1e-6;
  Tensor deriv = div(sub(fourier_cdf(c, add(z, h)), fourier_cdf(c, sub(z, h))), 2 * h);
  CHECK(allclose(deriv, fourier_pdf(c, z), 1e-6, 1e-7));
  Tensor cc = leaf64({2, 6}, 31), zz = leaf64({2, 3}, 32, 0.5);
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_cdf(x[0], x[1]); }, {cc, zz}));
}

TEST_CASE("fourier_regularizer: hand value and gradcheck") {
  // a_0 = 1 + 2i, a_1 = 3 - i: c_1 = a_0 conj(a_1) = (1 + 2i)(3 + i) = 1 + 7i, |c_1|^2 = 50.
  Tensor c = tensor({1, 3, 2, -1}, {1, 4}, {.dtype = DType::Float64});
  const double gamma = 1e-3;
  CHECK(fourier_regularizer(c, gamma, 50).item<double>() == doctest::Approx(gamma * 2 * kPi * kPi / 50 * 50));
  CHECK(fourier_regularizer(c, gamma, 50, true).item<double>() == doctest::Approx(gamma * 4 * kPi * kPi * 50));
  // Two rows: the batch mean. Row 2 has N = 1 with a_0 = 1, a_1 = 1: c_1 = 1.
  Tensor c2 = tensor({1, 3, 2, -1, 1, 1, 0, 0}, {2, 4}, {.dtype = DType::Float64});
  CHECK(fourier_regularizer(c2, 1.0, 10).item<double>() == doctest::Approx(2 * kPi * kPi / 10 * (50 + 1) / 2));
  Tensor cc = leaf64({3, 10}, 41);
  CHECK(gradcheck([](const std::vector<Tensor>& x) { return fourier_regularizer(x[0], 0.1, 20); }, {cc}));
}

TEST_CASE("fourier head ops reject bad input") {
  Tensor odd = zeros({2, 5});
  CHECK(throws_with([&] { fourier_head_log_pmf(odd, 10); }, {"fourier_head_log_pmf", "even", "(2, 5)"}));
  CHECK(throws_with([&] { fourier_head_log_pmf(ones({2, 4}), 0); }, {"fourier_head_log_pmf", "bins"}));
  CHECK(throws_with(
      [&] {
        fourier_head_log_pmf(ones({2, 4}).to(DType::BFloat16), 8);
      },
      {"fourier_head_log_pmf", "bfloat16", "upcast"}));
  CHECK(throws_with(
      [&] {
        fourier_pdf(ones({2, 4}), ones({3}, {.dtype = DType::Float64}));
      },
      {"fourier_pdf", "dtype"}));
  CHECK(throws_with([&] { fourier_regularizer(ones({2, 3}), 1.0, 4); }, {"fourier_regularizer", "even"}));
}

TEST_CASE("nn::FourierHead: init (scale invariance), regularization_loss, bf16 input upcast") {
  Generator gen(1);
  nn::FourierHead head(8, 50, 12, 1e-6, 100.0, 100.0, &gen);
  CHECK(head.num_parameters() == 8 * 26 + 26);
  Tensor x = randn({4, 8}, {}, &gen);
  Tensor out = head.forward(x);  // (4, 50)
  CHECK(out.shape() == Shape{4, 50});
  // p is invariant to scaling all coefficients, so equal denominators leave the initial pmf
  // exactly as with the plain Linear init (they only shrink the coefficients / rescale the
  // gradients); the pmf is a proper distribution, not uniform.
  Generator gen_plain(1);
  nn::FourierHead plain(8, 50, 12, 1e-6, 1.0, 1.0, &gen_plain);
  CHECK(allclose(out, plain.forward(x), 1e-4, 1e-5));
  CHECK(allclose(sum(sub(exp(out), 1e-5), {-1}), std::vector<double>(4, 1.0), 1e-4, 1e-4));
  Tensor reg = head.regularization_loss();
  CHECK(reg.item<double>() == doctest::Approx(fourier_regularizer(head.coefficients(x), 1e-6, 50).item<double>()));
  add(sum(out), mul(reg, 1e6)).backward();
  CHECK(head.linear->weight.grad().defined());
  CHECK(head.forward(x.to(DType::BFloat16)).dtype() == DType::Float32);
}

TEST_CASE("nn::FourierHeadMLE: nll, cdf, sampling histogram matches the pdf") {
  Generator gen(2);
  nn::FourierHeadMLE head(3, 4, 0.0, 1.0, 1.0, 50, &gen);  // denominators 1: a non-uniform density
  Tensor x = randn({2, 3}, {}, &gen);
  Tensor targets = tensor({0.1, -0.5}, {2});
  Tensor loss = head.nll(x, targets);
  Tensor p = squeeze(head.pdf(x, unsqueeze(targets, -1)), -1);
  CHECK(loss.item<double>() ==
        doctest::Approx(-0.5 * (std::log(p.to_vector()[0]) + std::log(p.to_vector()[1]))).epsilon(1e-5));
  loss.backward();
  CHECK(head.linear->weight.grad().defined());
  CHECK(allclose(head.cdf(x, tensor({-1.0, 1.0}, {2})), std::vector<double>{0, 1, 0, 1}, 1e-5, 1e-5));
  // 20000 samples per row in 20 bins vs the pdf's bin masses (CDF differences): loose chi-square.
  const int64_t s = 20000, nb = 20;
  std::vector<double> samples = head.sample(x, s, &gen).to_vector();
  Tensor edges = linspace(-1.0, 1.0, nb + 1, {.dtype = DType::Float64});
  std::vector<double> f = fourier_cdf(head.forward(x).detach().to(DType::Float64), edges).to_vector();  // (2, nb+1)
  for (int64_t r = 0; r < 2; ++r) {
    std::vector<double> counts(nb, 0.0);
    for (int64_t i = 0; i < s; ++i) {
      double v = samples[r * s + i];
      CHECK_FALSE((v < -1.0 || v > 1.0));
      counts[std::min<int64_t>(nb - 1, static_cast<int64_t>((v + 1.0) / 2.0 * nb))] += 1;
    }
    double chi2 = 0;
    for (int64_t b = 0; b < nb; ++b) {
      double expected = s * (f[r * (nb + 1) + b + 1] - f[r * (nb + 1) + b]);
      chi2 += (counts[b] - expected) * (counts[b] - expected) / std::max(expected, 1e-9);
    }
    CHECK(chi2 < 60.0);  // 19 degrees of freedom: mean 19, 60 is far in the tail
  }
}

TEST_CASE("nn::GMMHead and mixed_precision_bin_centres") {
  Generator gen(4);
  nn::GMMHead head(5, 50, 2, &gen);
  CHECK(allclose(head.stds, std::vector<double>{0.04, 0.04}));
  Tensor out = head.forward(randn({3, 5}, {}, &gen));
  CHECK(out.shape() == Shape{3, 50});
  CHECK(allclose(sum(sub(exp(out), 1e-5), {-1}), std::vector<double>(3, 1.0), 1e-4, 1e-4));
  sum(out).backward();
  CHECK(head.stds.grad().defined());

  Tensor c = data::mixed_precision_bin_centres(4096);
  std::vector<double> v = c.to_vector();
  REQUIRE(v.size() == 4096);
  for (size_t i = 1; i < v.size(); ++i) CHECK(v[i] > v[i - 1]);
  CHECK(v.front() > -15.0);
  CHECK(v.back() < 15.0);
  // Dense spacing 11 / n_mid vs sparse 14 / n_low: ratio ~ sparse_density.
  int64_t n_low = 0, n_mid = 0;
  for (double x : v) {
    n_low += x < -1.0;
    n_mid += x > -1.0 && x < 10.0;
  }
  CHECK((11.0 / n_mid) / (14.0 / n_low) == doctest::Approx(0.2).epsilon(0.02));
  CHECK(throws_with([] { data::mixed_precision_bin_centres(2); }, {"mixed_precision_bin_centres"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] fourier_head_log_pmf matches the CPU (even and odd bins, float32 and float64)") {
  announce_targets();
  // The lane-group kernels: 2049 and 2200 bins have 1025 and 1100 half-grid bins, so a block of
  // lanes shares each row.
  for (DType dt : {DType::Float64, DType::Float32})
    for (int64_t bins : {8, 9, 1, 33, 2049, 2200}) {
      CAPTURE(bins);
      check_against_cpu(
          "fourier_head_log_pmf", [bins](const std::vector<Tensor>& x) { return fourier_head_log_pmf(x[0], bins); },
          {scaled_normal({3, 2, 10}, 11 + bins, 0.5, dt)},
          // one bin: every output is log(1 + 1e-5) ~ 1e-5, where float32's rounding of the
          // 1 + 1e-5 inside the log (6e-8) is already a 1e-2 relative error, and the CPU's
          // vectorised log and libm's logf round it differently.
          dt == DType::Float32 && bins == 1 ? 1e-4 : kTolerance);
    }
}

TEST_CASE("[cuda] fourier_regularizer matches the CPU (odd shapes, float32 and float64)") {
  announce_targets();
  // N = 0 (no terms), 1, 4, 37 frequencies; one row, 3 x 5 rows and 7 rows, with both scalings.
  // The reference is the CPU kernel (forward and the analytic backward), not the composed form.
  struct Case {
    Shape shape;
    bool code_scaling;
  };
  const Case cases[] = {{{1, 2}, false}, {{3, 5, 4}, true}, {{7, 10}, false}, {{2, 3, 76}, false}, {{5, 76}, true}};
  for (DType dt : {DType::Float64, DType::Float32})
    for (const Case& c : cases) {
      CAPTURE(str(c.shape));
      CAPTURE(dtype_name(dt));
      const bool cs = c.code_scaling;
      check_against_cpu(
          "fourier_regularizer",
          [cs](const std::vector<Tensor>& x) { return fourier_regularizer(x[0], 0.3, 17, cs); },
          {scaled_normal(c.shape, 29 + c.shape.back(), 0.5, dt)});
    }
}

TEST_CASE("[cuda] fourier_regularizer on the CUDA kernels matches its composed form") {
  announce_targets();
  // The twin against the composed ops on the same target: the fused value and gradient are
  // the paper's regulariser, not only the CPU kernel's. A CUDA build binds both slots, so the
  // op never falls back to the composed form on a CUDA tensor.
  if (kBuiltWithCuda) {
    const bool forward_bound = fourier_regularizer_kernel.cuda != nullptr;
    const bool backward_bound = fourier_regularizer_backward_kernel.cuda != nullptr;
    CHECK(forward_bound);
    CHECK(backward_bound);
  }
  for_each_device([](const Target& t) {
    Tensor x = scaled_normal({4, 3, 18}, 5, 0.5, DType::Float64).to(t.device).detach().requires_grad_(true);
    Tensor y = x.detach().requires_grad_(true);
    Tensor fused = fourier_regularizer(x, 0.7, 11);
    Tensor composed = detail::fourier_regularizer_composed(y, 0.7, 11);
    fused.backward();
    composed.backward();
    check_close(composed.detach().to(Device::cpu()), fused.detach().to(Device::cpu()), "value on " + t.name, 1e-20);
    check_close(y.grad().to(Device::cpu()), x.grad().to(Device::cpu()), "gradient on " + t.name, 1e-20);
  });
}

}  // namespace cuda_cases

namespace autocorrelation_cases {

using namespace hm;
using namespace hm::test;

// a = alpha + i beta = (1, 2 - i, 0.5 + 3i): c_0 = 1 + 5 + 9.25 = 15.25,
// c_1 = a_0 conj(a_1) + a_1 conj(a_2) = (2 + i) + (-2 - 6.5i) = -5.5i, c_2 = a_0 conj(a_2) = 0.5 - 3i.
TEST_CASE("fourier_autocorrelation: c_k by hand, batched rows, gradcheck") {
  Tensor coeffs = tensor({1.0, 2.0, 0.5, 0.0, -1.0, 3.0}, {1, 6}, {.dtype = DType::Float64});
  auto [re, im] = fourier_autocorrelation(coeffs);
  CHECK(re.shape() == Shape{1, 3});
  CHECK(allclose(re, {15.25, 0.0, 0.5}));
  CHECK(allclose(im, {0.0, -5.5, -3.0}));
  auto [re2, im2] = fourier_autocorrelation(cat({coeffs, mul(coeffs, 2.0)}, 0));  // c scales with |a|^2
  CHECK(allclose(re2, {15.25, 0.0, 0.5, 61.0, 0.0, 2.0}));
  CHECK(allclose(im2, {0.0, -5.5, -3.0, 0.0, -22.0, -12.0}));
  CHECK(gradcheck(
      [](const std::vector<Tensor>& in) {
        auto [r, i] = fourier_autocorrelation(in[0]);
        return add(r, mul(i, 2.0));
      },
      {leaf64({2, 6}, 7)}));
}

}  // namespace autocorrelation_cases
