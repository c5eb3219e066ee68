// Metronome-like clips for the audio tempo toy (Fourier head paper, Appendix C.1 and Figure 7),
// the stand-in for the paper's metronome recordings: a click train at an integer tempo of
// 50..210 BPM with a random click timbre (shape, pitch, decay), level, background noise and
// offset, and the tempo's 5-BPM class.
//
// Classes: 32 bins of 5 BPM, bin k = [50 + 5k, 54 + 5k] for k = 0..31, except that the last
// bin [205, 210] also holds 210 (the paper's grouping {[50, 54], [55, 59], ...} would leave 210
// alone in a 33rd bin that one tempo in 161 falls into). Edges 50, 55, ..., 205, 211.
//
// Every clip is a pure function of (seed, index): its own generator stream (mix_seed), so a
// data set of N clips is the same whatever order or thread made them.
#pragma once
#include <cstdint>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::data {

inline constexpr int64_t kMetronomeMinBpm = 50;
inline constexpr int64_t kMetronomeMaxBpm = 210;
inline constexpr int64_t kMetronomeBinWidth = 5;
inline constexpr int64_t kMetronomeBins = 32;

// The class of an integer tempo in [50, 210]; throws naming it outside.
int64_t metronome_bin(int64_t bpm);
// Lowest and highest tempo of bin k (k = 31: 205 and 210); throws outside 0..31.
int64_t metronome_bin_low(int64_t bin);
int64_t metronome_bin_high(int64_t bin);

enum class ClickShape { Sine, Square, Noise };  // a decaying tone, a decaying square wave, a noise burst

struct MetronomeOptions {
  double sample_rate = 4000.0;                   // Hz; the click pitches stay below 0.4 x this
  double seconds = 4.0;                          // 3-4 clicks at 50 BPM, 14 at 210
  double min_pitch = 300.0, max_pitch = 1500.0;  // Hz, log-uniform
  double min_decay = 0.004, max_decay = 0.030;   // s, the click envelope's time constant, log-uniform
  double min_level = 0.1, max_level = 1.0;       // click peak amplitude, log-uniform
  double min_snr_db = 10.0, max_snr_db = 40.0;   // click peak over noise std, uniform in dB
};

struct MetronomeClip {
  std::vector<float> samples;  // (round(seconds * sample_rate))
  int64_t bpm = 0;             // 50..210
  int64_t label = 0;           // metronome_bin(bpm)
  double offset = 0;           // s, the first click, uniform in [0, 60 / bpm)
  ClickShape shape = ClickShape::Sine;
  double pitch = 0, decay = 0, level = 0, snr_db = 0;
};

// Clip `index` of the data set `seed`: a tempo uniform over the integers 50..210, clicks at
// offset + k 60 / bpm, each level x envelope exp(-t / decay) x the shape at `pitch` (cut at
// 6 decays), plus white Gaussian noise of std level / 10^(snr_db / 20). Throws on bad options.
MetronomeClip metronome_clip(const MetronomeOptions& options, uint64_t seed, int64_t index);

// The same with the tempo given (tests, plots); bpm must be in 50..210.
MetronomeClip metronome_clip_at(const MetronomeOptions& options, uint64_t seed, int64_t index, int64_t bpm);

// Clips first .. first + count - 1 of data set `seed` as (count, samples) float32, with their
// tempos and labels (count) int64. Clips are made in parallel.
struct MetronomeBatch {
  Tensor audio;   // (count, samples) float32
  Tensor bpm;     // (count) int64
  Tensor labels;  // (count) int64
};
MetronomeBatch metronome_batch(const MetronomeOptions& options, uint64_t seed, int64_t first, int64_t count);

}  // namespace hm::data
