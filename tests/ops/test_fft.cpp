// The FFT op family (ops/fft.h) against a direct O(n^2) DFT in long double for every length
// 1..64, primes (Bluestein), powers of two and mixed lengths; round trips; stft against a
// direct framed DFT and against PyTorch 1.13 (tests/reference/fft_reference.safetensors,
// written by tests/reference/make_fft_reference.py); float64 gradchecks; bad inputs.
#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <numbers>
#include <thread>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/ops/cpu/fft_plan.h"
#include "harmonic/ops/fft.h"
#include "harmonic/ops/stft.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;
using cld = std::complex<long double>;

namespace {

// max |got - want| / max |want| over complex values stored as (..., 2).
double relative_error(const std::vector<double>& got, const std::vector<cld>& want) {
  double err = 0, scale = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    err = std::max(err, static_cast<double>(std::abs(cld(got[2 * k], got[2 * k + 1]) - want[k])));
    scale = std::max(scale, static_cast<double>(std::abs(want[k])));
  }
  return err / std::max(scale, 1e-300);
}

std::vector<int64_t> test_lengths() {
  std::vector<int64_t> ns;
  for (int64_t n = 1; n <= 64; ++n) ns.push_back(n);
  for (int64_t n : {97, 101, 257, 1009, 128, 256, 512, 1024, 2048, 4096, 360, 1000, 2 * 3 * 5 * 7 * 11})
    ns.push_back(n);
  return ns;
}

const std::string kReference = std::string(HARMONIC_SOURCE_DIR) + "/tests/reference/fft_reference.safetensors";

}  // namespace

TEST_CASE("fft: rfft and fft match a direct DFT at every tested length (float64 ~1e-12, float32 ~1e-5)") {
  Generator gen(7);
  double worst64 = 0, worst32 = 0;
  for (int64_t n : test_lengths()) {
    CAPTURE(n);
    Tensor x = randn({n}, {.dtype = DType::Float64}, &gen);
    Tensor z = randn({n, 2}, {.dtype = DType::Float64}, &gen);
    std::vector<double> xv = x.to_vector(), zv = z.to_vector();
    std::vector<cld> xr(n), xc(n);
    for (int64_t j = 0; j < n; ++j) xr[j] = xv[j], xc[j] = cld(zv[2 * j], zv[2 * j + 1]);
    const std::vector<cld> Xr = direct_dft(xr), Xc = direct_dft(xc), Yc = direct_dft(xc, +1);
    const std::vector<cld> Xr_half(Xr.begin(), Xr.begin() + n / 2 + 1);
    const double e_rfft = relative_error(rfft(x).to_vector(), Xr_half);
    const double e_fft = relative_error(fft(z).to_vector(), Xc);
    std::vector<cld> Yn(Yc);
    for (cld& v : Yn) v /= static_cast<long double>(n);
    const double e_ifft = relative_error(ifft(z).to_vector(), Yn);
    CHECK(e_rfft < 1e-12);
    CHECK(e_fft < 1e-12);
    CHECK(e_ifft < 1e-12);
    worst64 = std::max({worst64, e_rfft, e_fft, e_ifft});
    const double e32 = relative_error(rfft(x.to(DType::Float32)).to_vector(), Xr_half);
    const double e32c = relative_error(fft(z.to(DType::Float32)).to_vector(), Xc);
    CHECK(e32 < 2e-5);
    CHECK(e32c < 2e-5);
    worst32 = std::max({worst32, e32, e32c});
  }
  MESSAGE("worst relative error vs direct DFT: float64 " << worst64 << ", float32 " << worst32);
}

TEST_CASE("fft: plans use Bluestein exactly for lengths with a prime factor above 13") {
  CHECK(!cpu_fft::plan<double>(360)->uses_bluestein());
  CHECK(!cpu_fft::plan<double>(2 * 3 * 5 * 7 * 11 * 13)->uses_bluestein());
  CHECK(cpu_fft::plan<double>(17)->uses_bluestein());
  CHECK(cpu_fft::plan<double>(4099)->uses_bluestein());
  CHECK(cpu_fft::plan<float>(1009) == cpu_fft::plan<float>(1009));  // cached
}

TEST_CASE("fft: round trips irfft(rfft(x), n) = x and ifft(fft(z)) = z, every norm") {
  Generator gen(3);
  for (int64_t n : test_lengths()) {
    CAPTURE(n);
    Tensor x = randn({2, n}, {.dtype = DType::Float64}, &gen);
    Tensor z = randn({2, n, 2}, {.dtype = DType::Float64}, &gen);
    for (FftNorm norm : {FftNorm::Backward, FftNorm::Forward, FftNorm::Ortho}) {
      CHECK(allclose(irfft(rfft(x, std::nullopt, norm), n, norm), x, 1e-12, 1e-12));
      CHECK(allclose(ifft(fft(z, norm), norm), z, 1e-12, 1e-12));
    }
    Tensor x32 = x.to(DType::Float32);
    CHECK(allclose(irfft(rfft(x32), n), x32, 1e-4, 1e-5));
  }
}

TEST_CASE("fft: batched, non-contiguous inputs give the rows' transforms") {
  Generator gen(11);
  Tensor base = randn({6, 3, 10}, {.dtype = DType::Float64}, &gen);
  Tensor x = transpose(base, 0, 2);  // (10, 3, 6), last dim strided
  REQUIRE(!x.is_contiguous());
  Tensor got = rfft(x);  // (10, 3, 4, 2)
  CHECK(got.shape() == Shape{10, 3, 4, 2});
  CHECK(allclose(got, rfft(x.contiguous()), 1e-14, 1e-14));
  Tensor row = rfft(select(select(x, 0, 4), 0, 2));  // one row alone
  CHECK(allclose(select(select(got, 0, 4), 0, 2), row, 1e-14, 1e-14));
  Tensor z = transpose(randn({7, 5, 2}, {.dtype = DType::Float64}, &gen), 0, 1);  // (5, 7, 2)
  CHECK(allclose(fft(z), fft(z.contiguous()), 1e-14, 1e-14));
  Tensor spec = transpose(randn({6, 3, 2}, {.dtype = DType::Float64}, &gen), 0, 1);  // (3, 6, 2)
  CHECK(allclose(irfft(spec, 10), irfft(spec.contiguous(), 10), 1e-14, 1e-14));
  // stft over two batch dims of a strided signal, and its gradient
  Tensor sig = transpose(randn({40, 2, 3}, {.dtype = DType::Float64}, &gen), 0, 2).requires_grad_(true);  // (3, 2, 40)
  Tensor sig_c = sig.detach().contiguous().requires_grad_(true);
  Tensor w = hann_window(8, true, {.dtype = DType::Float64});
  Tensor s1 = stft(sig, 8, 3, w), s2 = stft(sig_c, 8, 3, w);
  CHECK(s1.shape() == Shape{3, 2, 5, 14, 2});
  CHECK(allclose(s1, s2, 1e-14, 1e-14));
  Tensor up = randn(s1.shape(), {.dtype = DType::Float64}, &gen);
  s1.backward(up);
  s2.backward(up);
  CHECK(allclose(sig.grad(), sig_c.grad(), 1e-13, 1e-13));
}

// 19 rows = 2 blocks of 8 float lanes (4 of 4 double lanes) + 3 rows on the one-row path
// (ops/cpu/fft_lanes.h). Lengths: below and not a multiple of the lane count, odd and even
// stage counts (8 = one stage, 128 = 8 8 2), generic radices 7 and 11, Bluestein (17, 97 and
// the half-length 17 of 34), odd lengths (full complex plan), 1000 = 8 5 5 5, and 2048, whose
// rows skip the lanes (use_lanes in ops/cpu/fft_real.cpp) for the blocked first stage.
TEST_CASE("fft: blocks of rows in SIMD lanes match a direct DFT per row (rfft, fft, ifft, irfft)") {
  Generator gen(17);
  const int64_t rows = 19;
  for (int64_t n : {1, 2, 3, 5, 6, 8, 12, 14, 16, 17, 22, 34, 40, 97, 128, 250, 1000, 2048}) {
    CAPTURE(n);
    Tensor x = randn({rows, n}, {.dtype = DType::Float64}, &gen);
    Tensor z = randn({rows, n, 2}, {.dtype = DType::Float64}, &gen);
    const std::vector<double> xv = x.to_vector(), zv = z.to_vector();
    Tensor X = rfft(x), Z = fft(z), Zi = ifft(z), X32 = rfft(x.to(DType::Float32));
    for (int64_t r = 0; r < rows; r += n > 1000 ? 6 : 1) {  // the direct DFT is O(n^2)
      CAPTURE(r);
      std::vector<cld> xr(n), xc(n);
      for (int64_t j = 0; j < n; ++j) xr[j] = xv[r * n + j], xc[j] = cld(zv[2 * (r * n + j)], zv[2 * (r * n + j) + 1]);
      const std::vector<cld> Xr = direct_dft(xr), Xc = direct_dft(xc);
      std::vector<cld> Yc = direct_dft(xc, +1);
      for (cld& v : Yc) v /= static_cast<long double>(n);
      const std::vector<cld> Xr_half(Xr.begin(), Xr.begin() + n / 2 + 1);
      CHECK(relative_error(select(X, 0, r).to_vector(), Xr_half) < 1e-12);
      CHECK(relative_error(select(Z, 0, r).to_vector(), Xc) < 1e-12);
      CHECK(relative_error(select(Zi, 0, r).to_vector(), Yc) < 1e-12);
      CHECK(relative_error(select(X32, 0, r).to_vector(), Xr_half) < 2e-5);
    }
    // irfft of a whole spectrum (imaginary DC / Nyquist parts included) = each row alone.
    Tensor spec = randn({rows, n / 2 + 1, 2}, {.dtype = DType::Float64}, &gen);
    Tensor back = irfft(spec, n);
    for (int64_t r = 0; r < rows; r += 6) CHECK(allclose(select(back, 0, r), irfft(select(spec, 0, r), n), 1e-13, 1e-13));
    CHECK(allclose(irfft(X, n), x, 1e-12, 1e-12));
  }
}

TEST_CASE("fft: irfft drops the imaginary parts of DC and Nyquist, truncates and zero-pads bins") {
  Generator gen(5);
  Tensor spec = randn({9, 2}, {.dtype = DType::Float64}, &gen);  // 9 bins -> n = 16
  Tensor clean = spec.contiguous().clone();
  std::vector<double> v = clean.to_vector();
  v[1] = 0, v[17] = 0;
  CHECK(allclose(irfft(spec), irfft(from_vector(v, {9, 2})), 1e-14, 1e-14));
  // n = 10 uses bins 0..5 only; n = 30 pads bins 9..15 with zeros.
  CHECK(allclose(irfft(spec, 10), irfft(narrow(spec, 0, 0, 6), 10), 1e-14, 1e-14));
  CHECK(allclose(irfft(spec, 30), irfft(pad(spec, {0, 0, 0, 7}), 30), 1e-14, 1e-14));
  // rfft with n: truncate or zero-pad the signal.
  Tensor x = randn({12}, {.dtype = DType::Float64}, &gen);
  CHECK(allclose(rfft(x, 8), rfft(narrow(x, 0, 0, 8)), 1e-14, 1e-14));
  CHECK(allclose(rfft(x, 20), rfft(pad(x, {0, 8})), 1e-14, 1e-14));
}

TEST_CASE("fft: the plan cache is safe under concurrent first use") {
  // Several threads ask for new lengths (one a Bluestein plan) at once; every result must match.
  const std::vector<int64_t> ns = {4103, 1536, 4103, 3000, 1536, 4103};
  Generator gen(13);
  Tensor x = randn({4200}, {.dtype = DType::Float32}, &gen);
  std::vector<Tensor> results(ns.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ns.size(); ++i) threads.emplace_back([&, i] { results[i] = rfft(narrow(x, 0, 0, ns[i])); });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < ns.size(); ++i) CHECK(allclose(results[i], rfft(narrow(x, 0, 0, ns[i])), 0, 0));
}

TEST_CASE("fft ops match PyTorch 1.13 (rfft, irfft, stft, log spectrogram: outputs and gradients)") {
  SafetensorsFile ref = load_safetensors(kReference);
  int cases = 0;
  for (const auto& [key, value] : ref.metadata) {
    if (!key.starts_with("case:")) continue;
    const std::string name = key.substr(5);
    CAPTURE(name);
    const nlohmann::json meta = nlohmann::json::parse(value);
    const std::string op = meta.at("op");
    Tensor x = ref.at(name + "/x").detach().clone().requires_grad_(true);
    Tensor window = ref.contains(name + "/window") ? ref.at(name + "/window") : Tensor();
    Tensor out;
    if (op == "rfft")
      out = rfft(x, meta.at("n").get<int64_t>(), parse_fft_norm(meta.at("norm").get<std::string>(), "test"));
    else if (op == "irfft")
      out = irfft(x, meta.at("n").get<int64_t>(), parse_fft_norm(meta.at("norm").get<std::string>(), "test"));
    else if (op == "stft")
      out = stft(x, meta.at("n_fft").get<int64_t>(), meta.at("hop").get<int64_t>(), window,
                 meta.at("center").get<bool>());
    else
      out = log_spectrogram(x, meta.at("n_fft").get<int64_t>(), meta.at("hop").get<int64_t>(), window,
                            meta.at("center").get<bool>(), meta.at("eps").get<double>());
    CHECK(allclose(out, ref.at(name + "/output"), 1e-10, 1e-10));
    out.backward(ref.at(name + "/grad_output"));
    CHECK(allclose(x.grad(), ref.at(name + "/grad_x"), 1e-10, 1e-10));
    ++cases;
  }
  CHECK(cases == 12);
  CHECK(allclose(hann_window(10, true, {.dtype = DType::Float64}), ref.at("hann_periodic_10"), 1e-15, 1e-15));
  CHECK(allclose(hann_window(10, false, {.dtype = DType::Float64}), ref.at("hann_symmetric_10"), 1e-15, 1e-15));
}

TEST_CASE("fft: float64 gradcheck of rfft, irfft, fft, ifft, stft and log_spectrogram") {
  auto gc = [](const std::function<Tensor(const std::vector<Tensor>&)>& f, const Shape& shape) {
    return gradcheck(f, {leaf64(shape, 21)});
  };
  for (int64_t n : {1, 2, 7, 8, 17}) {
    CAPTURE(n);
    CHECK(gc([](auto& v) { return rfft(v[0]); }, {2, n}));
    CHECK(gc([n](auto& v) { return rfft(v[0], n + 3, FftNorm::Ortho); }, {2, n}));
    CHECK(gc([n](auto& v) { return irfft(v[0], n); }, {2, n / 2 + 1, 2}));
    CHECK(gc([n](auto& v) { return irfft(v[0], n, FftNorm::Forward); }, {3, 3, 2}));
    CHECK(gc([](auto& v) { return fft(v[0]); }, {2, n, 2}));
    CHECK(gc([](auto& v) { return ifft(v[0], FftNorm::Ortho); }, {2, n, 2}));
  }
  Tensor w = hann_window(12, true, {.dtype = DType::Float64});
  CHECK(gc([w](auto& v) { return stft(v[0], 12, 5, w, true); }, {2, 23}));
  CHECK(gc([w](auto& v) { return stft(v[0], 16, 3, w, false); }, {19}));
  CHECK(gc([](auto& v) { return log_spectrogram(v[0], 8, 2, hann_window(8, true, {.dtype = DType::Float64})); },
           {2, 13}));
}

TEST_CASE("fft: bad inputs raise errors naming the op and the offending shape") {
  Tensor x = zeros({3, 8}, {.dtype = DType::Float64});
  CHECK(throws_with([&] { rfft(zeros({3, 8}, {.dtype = DType::Int64})); }, {"rfft", "int64"}));
  CHECK(throws_with([&] { rfft(x, 0); }, {"rfft", "n = 0"}));
  CHECK(throws_with([&] { rfft(zeros({0}, {.dtype = DType::Float64})); }, {"rfft", "n = 0"}));
  CHECK(throws_with([&] { irfft(zeros({3, 8, 3}, {.dtype = DType::Float64})); }, {"irfft", "(3, 8, 3)"}));
  CHECK(throws_with([&] { irfft(zeros({3, 1, 2}, {.dtype = DType::Float64})); }, {"irfft", "n = 0"}));
  CHECK(throws_with([&] { fft(x); }, {"fft", "(3, 8)"}));
  CHECK(throws_with([&] { stft(x, 16); }, {"stft", "T > 8"}));
  CHECK(throws_with([&] { stft(x, 16, 4, {}, false); }, {"stft", "n_fft = 16"}));
  CHECK(throws_with([&] { stft(x, 4, 0); }, {"stft", "hop"}));
  CHECK(throws_with([&] { stft(x, 4, 1, ones({5}, {.dtype = DType::Float64})); }, {"stft", "window"}));
  CHECK(throws_with([&] { stft(x, 4, 1, ones({4})); }, {"stft", "float32"}));
  CHECK(throws_with([&] { parse_fft_norm("none", "rfft"); }, {"rfft", "none"}));
  CHECK(throws_with([&] { hann_window(0); }, {"hann_window"}));
}

TEST_CASE("[cuda] rfft, irfft, fft and stft match the CPU") {
  test::announce_targets();
  Tensor w = hann_window(64, true, {.dtype = DType::Float64});
  test::check_against_cpu(
      "rfft", [](auto& v) { return rfft(v[0]); }, {leaf64({3, 1000})}, 1e-20);
  test::check_against_cpu(
      "rfft prime", [](auto& v) { return rfft(v[0]); }, {leaf64({2, 1009})}, 1e-20);
  test::check_against_cpu(
      "irfft", [](auto& v) { return irfft(v[0], 99); }, {leaf64({2, 50, 2})}, 1e-20);
  test::check_against_cpu(
      "fft", [](auto& v) { return fft(v[0]); }, {leaf64({2, 360, 2})}, 1e-20);
  test::check_against_cpu(
      "stft", [w](auto& v) { return stft(v[0], 64, 16, w.to(v[0].device())); }, {leaf64({2, 500})}, 1e-20);
}
