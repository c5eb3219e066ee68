#include "harmonic/data/generated_series.h"

#include <algorithm>

#include "harmonic/core/error.h"
#include "harmonic/data/series_rng.h"

namespace hm::data {
namespace {
constexpr uint64_t kTrainSynth = 10, kTrainMixup = 11, kHeldOut = 20, kValidation = 21;
}

GeneratedSeries generate_series(const GeneratedSeriesOptions& o) {
  check(o.kernel_synth_series >= 1 && o.mixup_series >= 0 && o.held_out_series >= 0 && o.validation_series >= 0,
        "generate_series",
        "need kernel_synth_series >= 1, mixup_series, held_out_series, validation_series >= 0, got {}, {}, {}, {}",
        o.kernel_synth_series, o.mixup_series, o.held_out_series, o.validation_series);
  GeneratedSeries out;
  for (int64_t i = 0; i < o.kernel_synth_series; ++i)
    out.train.push_back(kernel_synth(o.synth, mix_seed(o.seed, kTrainSynth, static_cast<uint64_t>(i))).values);
  TSMixupOptions mixup = o.mixup;
  mixup.max_length = std::min(mixup.max_length, o.synth.length);
  mixup.min_length = std::min(mixup.min_length, mixup.max_length);
  const std::vector<std::vector<double>> pool = out.train;
  for (int64_t i = 0; i < o.mixup_series; ++i)
    out.train.push_back(ts_mixup(pool, mixup, mix_seed(o.seed, kTrainMixup, static_cast<uint64_t>(i))));
  for (int64_t i = 0; i < o.held_out_series; ++i) {
    KernelSynthSeries s = kernel_synth(o.synth, mix_seed(o.seed, kHeldOut, static_cast<uint64_t>(i)));
    out.held_out.push_back(std::move(s.values));
    out.held_out_kernels.push_back(std::move(s.kernel));
  }
  for (int64_t i = 0; i < o.validation_series; ++i) {
    KernelSynthSeries s = kernel_synth(o.synth, mix_seed(o.seed, kValidation, static_cast<uint64_t>(i)));
    out.validation.push_back(std::move(s.values));
    out.validation_kernels.push_back(std::move(s.kernel));
  }
  return out;
}

}  // namespace hm::data
