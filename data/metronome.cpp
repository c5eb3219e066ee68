#include "harmonic/data/metronome.h"

#include <cmath>
#include <numbers>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/parallel.h"
#include "harmonic/data/series_rng.h"

namespace hm::data {
namespace {

constexpr uint64_t kClipStream = 0xB10C;  // the metronome's stream of mix_seed
constexpr double kPi = std::numbers::pi;

void check_options(const MetronomeOptions& o) {
  constexpr const char* fn = "metronome_clip";
  check(o.sample_rate >= 100 && o.seconds > 0 && o.seconds * o.sample_rate <= 1e8, fn,
        "need sample_rate >= 100 Hz and 0 < seconds with at most 1e8 samples, got {} Hz and {} s", o.sample_rate,
        o.seconds);
  check(o.min_pitch > 0 && o.min_pitch <= o.max_pitch && o.max_pitch < 0.5 * o.sample_rate, fn,
        "need 0 < min_pitch <= max_pitch < sample_rate / 2, got {}..{} Hz at {} Hz", o.min_pitch, o.max_pitch,
        o.sample_rate);
  check(o.min_decay > 0 && o.min_decay <= o.max_decay, fn, "need 0 < min_decay <= max_decay, got {}..{}", o.min_decay,
        o.max_decay);
  check(o.min_level > 0 && o.min_level <= o.max_level, fn, "need 0 < min_level <= max_level, got {}..{}", o.min_level,
        o.max_level);
  check(o.min_snr_db <= o.max_snr_db && std::isfinite(o.min_snr_db) && std::isfinite(o.max_snr_db), fn,
        "need finite min_snr_db <= max_snr_db, got {}..{}", o.min_snr_db, o.max_snr_db);
}

double log_uniform(SeriesRng& rng, double lo, double hi) { return lo * std::exp(rng.uniform() * std::log(hi / lo)); }

}  // namespace

int64_t metronome_bin(int64_t bpm) {
  check(bpm >= kMetronomeMinBpm && bpm <= kMetronomeMaxBpm, "metronome_bin", "tempo {} BPM is outside {}..{}", bpm,
        kMetronomeMinBpm, kMetronomeMaxBpm);
  return std::min((bpm - kMetronomeMinBpm) / kMetronomeBinWidth, kMetronomeBins - 1);
}

int64_t metronome_bin_low(int64_t bin) {
  check(bin >= 0 && bin < kMetronomeBins, "metronome_bin_low", "bin {} is outside 0..{}", bin, kMetronomeBins - 1);
  return kMetronomeMinBpm + kMetronomeBinWidth * bin;
}

int64_t metronome_bin_high(int64_t bin) {
  check(bin >= 0 && bin < kMetronomeBins, "metronome_bin_high", "bin {} is outside 0..{}", bin, kMetronomeBins - 1);
  return bin == kMetronomeBins - 1 ? kMetronomeMaxBpm : metronome_bin_low(bin) + kMetronomeBinWidth - 1;
}

MetronomeClip metronome_clip_at(const MetronomeOptions& o, uint64_t seed, int64_t index, int64_t bpm) {
  check_options(o);
  check(index >= 0, "metronome_clip", "index must be >= 0, got {}", index);
  MetronomeClip clip;
  clip.bpm = bpm;
  clip.label = metronome_bin(bpm);
  // The tempo is drawn first (metronome_clip), so the timbre draws are the same for a given
  // (seed, index) whichever way the tempo came.
  SeriesRng rng(mix_seed(seed, kClipStream, static_cast<uint64_t>(index)));
  (void)rng.uniform();
  const double period = 60.0 / static_cast<double>(bpm);
  clip.offset = rng.uniform() * period;
  clip.shape = static_cast<ClickShape>(rng.below(3));
  clip.pitch = log_uniform(rng, o.min_pitch, o.max_pitch);
  clip.decay = log_uniform(rng, o.min_decay, o.max_decay);
  clip.level = log_uniform(rng, o.min_level, o.max_level);
  clip.snr_db = o.min_snr_db + rng.uniform() * (o.max_snr_db - o.min_snr_db);
  const double phase = rng.uniform() * 2 * kPi;

  const int64_t n = std::llround(o.seconds * o.sample_rate);
  clip.samples.assign(static_cast<size_t>(n), 0.0f);
  const double noise_std = clip.level / std::pow(10.0, clip.snr_db / 20.0);
  for (float& s : clip.samples) s = static_cast<float>(noise_std * rng.normal());

  // One click shape for the whole clip (a metronome repeats its sound); a noise burst draws
  // its noise once and reuses it at every click.
  const int64_t click_len = std::min<int64_t>(n, std::llround(6 * clip.decay * o.sample_rate) + 1);
  std::vector<double> click(static_cast<size_t>(click_len));
  for (int64_t j = 0; j < click_len; ++j) {
    const double t = static_cast<double>(j) / o.sample_rate;
    const double carrier = std::sin(2 * kPi * clip.pitch * t + phase);
    double wave = carrier;
    if (clip.shape == ClickShape::Square) wave = carrier >= 0 ? 1.0 : -1.0;
    if (clip.shape == ClickShape::Noise) wave = std::clamp(rng.normal() / 3.0, -1.0, 1.0);
    click[static_cast<size_t>(j)] = clip.level * std::exp(-t / clip.decay) * wave;
  }
  for (int64_t k = 0;; ++k) {
    const int64_t start = std::llround((clip.offset + static_cast<double>(k) * period) * o.sample_rate);
    if (start >= n) break;
    for (int64_t j = 0; j < click_len && start + j < n; ++j)
      clip.samples[static_cast<size_t>(start + j)] += static_cast<float>(click[static_cast<size_t>(j)]);
  }
  return clip;
}

MetronomeClip metronome_clip(const MetronomeOptions& o, uint64_t seed, int64_t index) {
  check(index >= 0, "metronome_clip", "index must be >= 0, got {}", index);
  SeriesRng rng(mix_seed(seed, kClipStream, static_cast<uint64_t>(index)));
  const int64_t bpm = kMetronomeMinBpm + rng.below(kMetronomeMaxBpm - kMetronomeMinBpm + 1);
  return metronome_clip_at(o, seed, index, bpm);
}

MetronomeBatch metronome_batch(const MetronomeOptions& o, uint64_t seed, int64_t first, int64_t count) {
  check_options(o);
  check(first >= 0 && count >= 1, "metronome_batch", "need first >= 0 and count >= 1, got {} and {}", first, count);
  const int64_t n = std::llround(o.seconds * o.sample_rate);
  MetronomeBatch b{empty({count, n}, {.dtype = DType::Float32}), empty({count}, {.dtype = DType::Int64}),
                   empty({count}, {.dtype = DType::Int64})};
  float* audio = b.audio.data<float>();
  int64_t* bpm = b.bpm.data<int64_t>();
  int64_t* labels = b.labels.data<int64_t>();
  parallel_for(count, n * 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const MetronomeClip clip = metronome_clip(o, seed, first + i);
      std::copy(clip.samples.begin(), clip.samples.end(), audio + i * n);
      bpm[i] = clip.bpm;
      labels[i] = clip.label;
    }
  });
  return b;
}

}  // namespace hm::data
