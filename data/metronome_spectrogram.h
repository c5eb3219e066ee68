// The audio tempo toy's input features: log-power spectrograms of metronome clips
// (data/metronome.h) by Harmonic's STFT op (ops/fft.h log_spectrogram), pooled into frequency
// bands and standardised per clip. They are computed once per clip when a data set is built,
// not inside the model: the transform has no parameters and the clips are fixed, so per step
// it would only repeat the same work (and the gradient never needs to reach the waveform).
#pragma once
#include <cstdint>

#include "harmonic/core/tensor.h"
#include "harmonic/data/metronome.h"

namespace hm::data {

struct SpectrogramOptions {
  int64_t n_fft = 256;  // 64 ms at 4 kHz: 129 bins of 15.6 Hz
  int64_t hop = 128;    // 32 ms frames: a 4 s clip has 1 + 16000 / 128 = 126 (centred)
  int64_t bands = 16;   // bins 0 .. n_fft/2 - 1 averaged in equal groups (8 bins of 15.6 Hz each)
};

// Frames of a clip of `samples` samples (centred STFT): 1 + samples / hop.
int64_t spectrogram_frames(int64_t samples, const SpectrogramOptions& options);

// audio (B, T) -> (B, frames, bands) float32: log(|stft|^2 + 1e-10) with a periodic Hann
// window (centred, reflect padding), the Nyquist bin dropped, the bins 0 .. n_fft/2 - 1
// averaged in `bands` groups of n_fft / (2 bands), then each clip shifted and scaled to mean 0
// and std 1 (the clips' levels differ by 20 dB). Throws naming the function for a bad shape or
// a band count that does not divide n_fft / 2.
Tensor metronome_spectrogram(const Tensor& audio, const SpectrogramOptions& options);

// A data set of `count` clips (from clip `first` of data set `seed`) as features and labels,
// made in chunks so the waveforms of at most 256 clips exist at once.
struct MetronomeFeatures {
  Tensor features;  // (count, frames, bands) float32
  Tensor labels;    // (count) int64, the 5-BPM bins
  Tensor bpm;       // (count) int64
};
MetronomeFeatures metronome_features(const MetronomeOptions& clips, const SpectrogramOptions& spectrogram,
                                     uint64_t seed, int64_t first, int64_t count);

}  // namespace hm::data
