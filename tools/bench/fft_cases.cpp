// The FFT cases of `harmonic bench --fft` (tools/bench/cases.h); tools/bench/torch/bench_fft_torch.py
// times torch.fft.rfft and torch.stft on the same shapes.
#include <algorithm>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/fft.h"
#include "harmonic/ops/stft.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/tools/bench/cases.h"

namespace hm::bench {
namespace {

struct FftCase {
  const char* name;
  const char* label;
  int64_t rows, length;
  int64_t n_fft = 0, hop = 0;  // stft when n_fft > 0
};

const std::vector<FftCase>& fft_cases() {
  static const std::vector<FftCase> cases = {
      {"rfft_256x4096", "rfft (256, 4096)", 256, 4096},
      {"rfft_256x1000", "rfft (256, 1000)", 256, 1000},
      {"rfft_64x4099", "rfft (64, 4099) prime", 64, 4099},
      {"stft_16x88200", "stft (16, 88200) n_fft 1024 hop 256 hann", 16, 88200, 1024, 256},
  };
  return cases;
}

}  // namespace

std::vector<std::string> fft_case_names() {
  std::vector<std::string> names;
  for (const FftCase& c : fft_cases()) names.push_back(c.name);
  return names;
}

void run_fft_cases(const std::vector<std::string>& only, const TimingOptions& opt, const FftReport& report) {
  const std::vector<std::string> names = fft_case_names();
  for (const std::string& c : only)
    check(std::find(names.begin(), names.end(), c) != names.end(), "bench",
          "--fft: unknown case '{}' (expected one of {})", c, fmt::join(names, ", "));
  Generator gen(1234);
  for (const FftCase& c : fft_cases()) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    Tensor x = randn({c.rows, c.length}, {}, &gen).requires_grad_(true);
    Tensor window = c.n_fft ? hann_window(c.n_fft) : Tensor();
    auto op = [&] { return c.n_fft ? stft(x, c.n_fft, c.hop, window) : rfft(x); };
    const double fwd = time_ms(
        [&] {
          NoGradGuard no_grad;
          op();
        },
        opt);
    const double fwd_bwd = time_ms(
        [&] {
          sum(op()).backward();
          x.zero_grad();
        },
        opt);
    report(c.label, fwd, fwd_bwd);
  }
}

}  // namespace hm::bench
