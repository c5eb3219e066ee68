// Op table entries for the FFT family (ops/fft.h). Complex values are a trailing dim of 2;
// "n" and "hop" default to null (the op's own default: the input length, n_fft / 4).
#include "harmonic/ops/fft.h"
#include "harmonic/ops/stft.h"

#include "harmonic/ops/registry/registry.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

std::optional<int64_t> maybe(A a, const char* key) {
  return a.is_null(key) ? std::nullopt : std::optional<int64_t>(a.i(key));
}

FftNorm norm_of(A a, const char* fn) { return parse_fft_norm(a.s("norm"), fn); }

}  // namespace

void add_fft_ops(std::vector<OpSpec>& t) {
  FamilyTable F{t, "fft"};
  const char* len_norm = R"({"n": null, "norm": "backward"})";
  F("rfft", "x", len_norm, [](V x, A a) { return rfft(x[0], maybe(a, "n"), norm_of(a, "rfft")); })
      .ex("2x6", R"({"n": 7, "norm": "ortho"})")
      .bad("scalar");
  F("irfft", "spec", len_norm, [](V x, A a) { return irfft(x[0], maybe(a, "n"), norm_of(a, "irfft")); })
      .ex("2x4x2", R"({"n": 7})")
      .bad("2x4x3");
  F("fft", "x", R"({"norm": "backward"})", [](V x, A a) { return fft(x[0], norm_of(a, "fft")); })
      .ex("2x5x2")
      .bad("2x5x3");
  F("ifft", "x", R"({"norm": "backward"})", [](V x, A a) { return ifft(x[0], norm_of(a, "ifft")); })
      .ex("2x5x2", R"({"norm": "ortho"})")
      .bad("2x5x3");
  // window: a constant (no gradient), length <= n_fft, zero-padded to n_fft.
  const char* frames = R"({"n_fft": null, "hop": null, "center": true})";
  F("stft", "x ~window?", frames,
    [](V x, A a) { return stft(x[0], a.i("n_fft"), maybe(a, "hop"), x[1], a.b("center")); })
      .ex("2x20,7", R"({"n_fft": 8, "hop": 3})")
      .bad("2x20,9");
  F("stft_frames", "x ~window?", frames,
    [](V x, A a) { return detail::stft_frames(x[0], a.i("n_fft"), maybe(a, "hop"), x[1], a.b("center")); })
      .ex("2x20,7", R"({"n_fft": 8, "hop": 3})")
      .bad("2x20,9")
      .fn("stft");
  F("log_spectrogram", "x ~window?", R"({"n_fft": null, "hop": null, "center": true, "eps": 1e-10})",
    [](V x, A a) { return log_spectrogram(x[0], a.i("n_fft"), maybe(a, "hop"), x[1], a.b("center"), a.f("eps")); })
      .ex("2x20,8", R"({"n_fft": 8, "hop": 3})")
      .bad("2x4,8")
      .fn("stft");
}

}  // namespace hm::ops
