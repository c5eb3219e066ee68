// stft against a direct framed DFT (its PyTorch values, gradcheck and [cuda] case are in
// test_fft.cpp beside the transforms they share).
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

TEST_CASE("stft: matches a direct framed DFT (reflect-padded centre, short window, no centre)") {
  Generator gen(17);
  Tensor x = randn({2, 90}, {.dtype = DType::Float64}, &gen);
  for (auto entry : {std::tuple<int64_t, int64_t, int64_t, bool>{16, 4, 16, true},
                                         {15, 7, 11, true},
                                         {20, 5, 20, false},
                                         {33, 10, 33, true}}) {
    auto [n_fft_, hop, win, center] = entry;
    const int64_t n_fft = n_fft_;  // a variable, not a binding: CAPTURE is a lambda (clang 14)
    CAPTURE(n_fft);
    Tensor w = hann_window(win, true, {.dtype = DType::Float64});
    Tensor got = stft(x, n_fft, hop, w, center);  // (2, bins, frames, 2)
    const int64_t T = 90, pad = center ? n_fft / 2 : 0, frames = 1 + (T + 2 * pad - n_fft) / hop;
    const int64_t bins = n_fft / 2 + 1, left = (n_fft - win) / 2;
    REQUIRE(got.shape() == Shape{2, bins, frames, 2});
    std::vector<double> xv = x.to_vector(), wv = w.to_vector(), gv = got.contiguous().to_vector();
    double err = 0;
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t f = 0; f < frames; ++f) {
        std::vector<cld> frame(n_fft, 0);
        for (int64_t i = 0; i < n_fft; ++i) {
          int64_t q = f * hop + i - pad;
          q = q < 0 ? -q : q >= T ? 2 * (T - 1) - q : q;
          const double wi = (i >= left && i < left + win) ? wv[i - left] : 0.0;
          frame[i] = xv[r * T + q] * wi;
        }
        const std::vector<cld> X = direct_dft(frame);
        for (int64_t k = 0; k < bins; ++k) {
          const int64_t at = ((r * bins + k) * frames + f) * 2;
          err = std::max(err, static_cast<double>(std::abs(cld(gv[at], gv[at + 1]) - X[k])));
        }
      }
    CHECK(err < 1e-12);
  }
}
