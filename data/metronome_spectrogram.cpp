#include "harmonic/data/metronome_spectrogram.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/error.h"
#include "harmonic/ops/fft.h"
#include "harmonic/ops/stft.h"
#include "harmonic/ops/ops.h"

namespace hm::data {
namespace {

constexpr const char* kMetronomeSpectrogram = "metronome_spectrogram";

void check_options(const SpectrogramOptions& o) {
  check(o.n_fft >= 4 && o.n_fft % 2 == 0 && o.hop >= 1 && o.bands >= 1 && (o.n_fft / 2) % o.bands == 0, kMetronomeSpectrogram,
        "need an even n_fft >= 4, hop >= 1 and bands dividing n_fft / 2, got n_fft {}, hop {}, bands {}", o.n_fft,
        o.hop, o.bands);
}

}  // namespace

int64_t spectrogram_frames(int64_t samples, const SpectrogramOptions& o) {
  check_options(o);
  return 1 + samples / o.hop;
}

Tensor metronome_spectrogram(const Tensor& audio, const SpectrogramOptions& o) {
  check_options(o);
  check(audio.dim() == 2 && audio.size(1) > o.n_fft / 2, kMetronomeSpectrogram,
        "audio must be (B, T) with T > n_fft / 2 = {} (reflect padding), got {}", o.n_fft / 2, str(audio.shape()));
  NoGradGuard no_grad;
  const int64_t B = audio.size(0), half = o.n_fft / 2;
  Tensor window = hann_window(o.n_fft, true, {.dtype = audio.dtype()});
  Tensor spec = log_spectrogram(audio, o.n_fft, o.hop, window, true);  // (B, half + 1, frames)
  const int64_t frames = spec.size(2);
  Tensor bins = transpose(narrow(spec, 1, 0, half), 1, 2);                        // (B, frames, half)
  Tensor bands = mean(reshape(bins, {B, frames, o.bands, half / o.bands}), {3});  // (B, frames, bands)
  Tensor centred = sub(bands, mean(bands, {1, 2}, true));
  Tensor scale = add(std(centred, {1, 2}, 0, true), 1e-6);
  return div(centred, scale).to(DType::Float32).contiguous();
}

MetronomeFeatures metronome_features(const MetronomeOptions& clips, const SpectrogramOptions& spectrogram,
                                     uint64_t seed, int64_t first, int64_t count) {
  check(count >= 1 && first >= 0, "metronome_features", "need first >= 0 and count >= 1, got {} and {}", first, count);
  constexpr int64_t kChunk = 256;
  std::vector<Tensor> features, labels, bpm;
  for (int64_t start = 0; start < count; start += kChunk) {
    const MetronomeBatch b = metronome_batch(clips, seed, first + start, std::min(kChunk, count - start));
    features.push_back(metronome_spectrogram(b.audio, spectrogram));
    labels.push_back(b.labels);
    bpm.push_back(b.bpm);
  }
  return {cat(features, 0), cat(labels, 0), cat(bpm, 0)};
}

}  // namespace hm::data
