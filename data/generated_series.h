// The Chronos task's training and held-out series, all generated (no real data set): KernelSynth
// series plus TSMixup combinations of them for training, and separate KernelSynth series for
// held-out evaluation, and optionally validation KernelSynth series for choices. Each series'
// draws come from mix_seed(seed, stream, index) with one stream per role (train KernelSynth,
// train TSMixup, held-out, validation), so no series is in two splits and the held-out set does
// not change when the other counts do.
#pragma once
#include <cstdint>
#include <vector>

#include "harmonic/data/kernel_synth.h"
#include "harmonic/data/ts_mixup.h"

namespace hm::data {

struct GeneratedSeriesOptions {
  int64_t kernel_synth_series = 512;  // training KernelSynth series
  int64_t mixup_series = 256;         // training TSMixup series over them
  int64_t held_out_series = 64;       // held-out KernelSynth series
  int64_t validation_series = 0;      // validation KernelSynth series (a stream of their own)
  KernelSynthOptions synth;           // length = every KernelSynth series' length
  TSMixupOptions mixup;               // max_length is cut to synth.length
  uint64_t seed = 0;
};

struct GeneratedSeries {
  std::vector<std::vector<double>> train;     // KernelSynth then TSMixup
  std::vector<std::vector<double>> held_out;  // KernelSynth, other seeds
  std::vector<KernelComposition> held_out_kernels;  // the kernel of each held-out series (its seasonality)
  std::vector<std::vector<double>> validation;        // KernelSynth, a third stream
  std::vector<KernelComposition> validation_kernels;
};

GeneratedSeries generate_series(const GeneratedSeriesOptions& options);

}  // namespace hm::data
