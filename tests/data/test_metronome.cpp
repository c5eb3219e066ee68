// The audio tempo toy's data (data/metronome.h, data/metronome_spectrogram.h): clips are a
// pure function of (seed, index), the clicks repeat at the tempo's period (autocorrelation of
// the energy), the 5-BPM bins and their edges, and the spectrogram features' shape and scale.
#include <cmath>
#include <map>

#include "harmonic/data/metronome.h"
#include "harmonic/data/metronome_spectrogram.h"
#include "harmonic/ops/fft.h"
#include "harmonic/ops/stft.h"
#include "harmonic/ops/ops.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::data;
using hm::test::throws_with;

namespace {

// The lag (in samples) in [lo, hi] maximising sum_t e(t) e(t + lag) of the energy e = x^2.
// Unnormalised, so among the multiples of the period the shortest (most overlapping) wins.
int64_t energy_autocorrelation_peak(const std::vector<float>& x, int64_t lo, int64_t hi) {
  std::vector<double> e(x.size());
  for (size_t i = 0; i < x.size(); ++i) e[i] = static_cast<double>(x[i]) * x[i];
  int64_t best = lo;
  double best_value = -1;
  for (int64_t lag = lo; lag <= hi; ++lag) {
    double s = 0;
    for (size_t t = 0; t + static_cast<size_t>(lag) < e.size(); ++t) s += e[t] * e[t + static_cast<size_t>(lag)];
    if (s > best_value) best_value = s, best = lag;
  }
  return best;
}

}  // namespace

TEST_CASE("metronome: 32 bins of 5 BPM, 210 in the last") {
  CHECK(kMetronomeBins == 32);
  CHECK(metronome_bin(50) == 0);
  CHECK(metronome_bin(54) == 0);
  CHECK(metronome_bin(55) == 1);
  CHECK(metronome_bin(127) == 15);
  CHECK(metronome_bin(204) == 30);
  CHECK(metronome_bin(205) == 31);
  CHECK(metronome_bin(210) == 31);
  std::map<int64_t, int> tempos_per_bin;
  for (int64_t bpm = 50; bpm <= 210; ++bpm) {
    const int64_t k = metronome_bin(bpm);
    CHECK(bpm >= metronome_bin_low(k));
    CHECK(bpm <= metronome_bin_high(k));
    ++tempos_per_bin[k];
  }
  CHECK(tempos_per_bin.size() == 32);
  for (auto [k, n] : tempos_per_bin) CHECK(n == (k == 31 ? 6 : 5));
  CHECK(metronome_bin_low(31) == 205);
  CHECK(metronome_bin_high(31) == 210);
  CHECK(metronome_bin_high(0) == 54);
  CHECK(throws_with([] { metronome_bin(49); }, {"metronome_bin", "49"}));
  CHECK(throws_with([] { metronome_bin(211); }, {"metronome_bin", "211"}));
  CHECK(throws_with([] { metronome_bin_low(32); }, {"metronome_bin_low", "32"}));
}

TEST_CASE("metronome: a clip is a pure function of (seed, index)") {
  const MetronomeOptions o;
  const MetronomeClip a = metronome_clip(o, 7, 3), b = metronome_clip(o, 7, 3);
  CHECK(a.samples == b.samples);
  CHECK(a.bpm == b.bpm);
  CHECK(a.samples.size() == 16000);  // 4 s at 4 kHz
  CHECK(metronome_clip(o, 7, 4).samples != a.samples);
  CHECK(metronome_clip(o, 8, 3).samples != a.samples);
  // A batch equals its clips made one by one, whatever the chunk.
  const MetronomeBatch batch = metronome_batch(o, 7, 2, 3);
  CHECK(batch.audio.size(0) == 3);
  const std::vector<float> row = select(batch.audio, 0, 1).to_vector_as<float>();
  CHECK(row == a.samples);
  CHECK(batch.bpm.to_vector_as<int64_t>()[1] == a.bpm);
  CHECK(batch.labels.to_vector_as<int64_t>()[1] == a.label);
  // The timbre does not depend on how the tempo came.
  const MetronomeClip at = metronome_clip_at(o, 7, 3, 120);
  CHECK(at.pitch == a.pitch);
  CHECK(at.decay == a.decay);
  CHECK(at.shape == a.shape);
}

TEST_CASE("metronome: the tempos cover 50..210 with labels of their bins, timbres vary") {
  const MetronomeOptions o;
  std::map<int, int> shapes;
  int64_t lo = 1000, hi = 0;
  double pitch_lo = 1e9, pitch_hi = 0;
  for (int64_t i = 0; i < 2000; ++i) {
    const MetronomeClip c = metronome_clip({.seconds = 0.1}, 1, i);
    CHECK(c.label == metronome_bin(c.bpm));
    lo = std::min(lo, c.bpm), hi = std::max(hi, c.bpm);
    ++shapes[static_cast<int>(c.shape)];
    pitch_lo = std::min(pitch_lo, c.pitch), pitch_hi = std::max(pitch_hi, c.pitch);
    CHECK(c.offset >= 0);
    CHECK(c.offset < 60.0 / static_cast<double>(c.bpm));
    CHECK(c.snr_db >= o.min_snr_db);
    CHECK(c.snr_db <= o.max_snr_db);
  }
  CHECK(lo == 50);
  CHECK(hi == 210);
  CHECK(shapes.size() == 3);
  CHECK(pitch_lo >= 300);
  CHECK(pitch_hi <= 1500);
  CHECK(pitch_hi / pitch_lo > 3);
}

TEST_CASE("metronome: the clicks repeat at 60 / bpm seconds (energy autocorrelation)") {
  MetronomeOptions o;
  o.min_snr_db = o.max_snr_db = 40;  // quiet noise: the peak is the clicks'
  for (int64_t bpm : {50, 61, 97, 150, 199, 210}) {
    for (int64_t index : {0, 1, 2}) {
      const MetronomeClip c = metronome_clip_at(o, 11, index, bpm);
      // Lags 0.2 s .. 1.3 s: every period of 50..210 BPM (0.286..1.2 s), and no half-period.
      const int64_t peak = energy_autocorrelation_peak(c.samples, 800, 5200);
      const double period = 60.0 / static_cast<double>(bpm) * o.sample_rate;
      INFO("bpm ", bpm, " index ", index, " peak lag ", peak, " period ", period);
      CHECK(std::abs(static_cast<double>(peak) - period) <= 1.0);  // click starts are rounded to samples
    }
  }
}

TEST_CASE("metronome: spectrogram features are (clips, frames, bands), standardised, from the STFT op") {
  const MetronomeOptions o;
  const SpectrogramOptions s;  // n_fft 256, hop 128, 16 bands
  const MetronomeFeatures f = metronome_features(o, s, 5, 0, 3);
  CHECK(f.features.shape() == Shape{3, 126, 16});
  CHECK(spectrogram_frames(16000, s) == 126);
  CHECK(f.labels.to_vector_as<int64_t>()[2] == metronome_clip(o, 5, 2).label);
  for (int64_t i = 0; i < 3; ++i) {
    Tensor clip = select(f.features, 0, i).to(DType::Float64);
    CHECK(std::abs(mean(clip).item<double>()) < 1e-5);
    CHECK(std::abs(hm::std(clip, {}, 0).item<double>() - 1.0) < 1e-4);
  }
  // Band 0 of frame 10 is the mean log power of bins 0..7 of the STFT, before standardising.
  const MetronomeClip c = metronome_clip(o, 5, 1);
  Tensor audio = from_vector(c.samples, {1, 16000});
  Tensor log_power =
      log_spectrogram(audio.to(DType::Float64), 256, 128, hann_window(256, true, {.dtype = DType::Float64}));
  const std::vector<double> lp = log_power.contiguous().to_vector();  // (1, 129, 126)
  auto at = [&](int64_t k, int64_t t) { return lp[static_cast<size_t>(k * 126 + t)]; };
  std::vector<double> band(126 * 16);
  double mu = 0, var = 0;
  for (int64_t t = 0; t < 126; ++t)
    for (int64_t b = 0; b < 16; ++b) {
      double sum = 0;
      for (int64_t k = 8 * b; k < 8 * b + 8; ++k) sum += at(k, t);
      band[static_cast<size_t>(t * 16 + b)] = sum / 8;
      mu += sum / 8 / (126 * 16);
    }
  for (double v : band) var += (v - mu) * (v - mu) / (126 * 16);
  const std::vector<float> got = select(f.features, 0, 1).contiguous().to_vector_as<float>();  // (126, 16)
  for (size_t i = 0; i < band.size(); ++i)
    CHECK(got[i] == doctest::Approx((band[i] - mu) / std::sqrt(var)).epsilon(1e-3));
  // The clicks stand out: the frame of the first click is louder than the frame halfway to the next.
  const int64_t click_frame = std::llround(c.offset * 4000 / 128);
  const int64_t quiet_frame = std::llround((c.offset + 30.0 / static_cast<double>(c.bpm)) * 4000 / 128);
  double loud = 0, quiet = 0;
  for (size_t b = 0; b < 16; ++b) {
    loud += got[static_cast<size_t>(click_frame) * 16 + b];
    quiet += got[static_cast<size_t>(quiet_frame) * 16 + b];
  }
  CHECK(loud > quiet);
}

TEST_CASE("metronome: bad options and shapes name the function") {
  CHECK(throws_with([] { metronome_clip({.max_pitch = 2500}, 0, 0); }, {"metronome_clip", "2500"}));
  CHECK(throws_with([] { metronome_clip({.seconds = -1}, 0, 0); }, {"metronome_clip", "-1"}));
  CHECK(throws_with([] { metronome_clip({}, 0, -2); }, {"metronome_clip", "-2"}));
  CHECK(throws_with([] { metronome_batch({}, 0, 0, 0); }, {"metronome_batch", "0"}));
  CHECK(throws_with([] { metronome_spectrogram(zeros({3, 100, 2}), {}); }, {"metronome_spectrogram", "(3, 100, 2)"}));
  CHECK(throws_with(
      [] {
        metronome_spectrogram(zeros({3, 1000}), {.bands = 5});
      },
      {"metronome_spectrogram", "bands 5"}));
}
