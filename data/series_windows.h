// Tokenised (context, future) windows of series for Chronos training and evaluation.
//   context (N, C + 1) int64: the window's first C values (mean-scaled by their own mean |x|,
//           PAD where missing) and EOS; labels (N, H) int64: the next H values' bins with the
//           context's scale (kIgnoreLabel where missing).
#pragma once
#include <cstdint>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/series_tokenizer.h"

namespace hm::data {

struct SeriesWindows {
  Tensor context;  // (N, C + 1) int64
  Tensor labels;   // (N, H) int64
};

// windows_per_series windows of C + H points at offsets drawn from mix_seed(seed, 30, ...) in
// every series of at least C + H points (shorter series are skipped; throws if none is long
// enough).
SeriesWindows random_windows(const std::vector<std::vector<double>>& series, const SeriesTokenizer& tokenizer,
                             int64_t context_length, int64_t horizon, int64_t windows_per_series, uint64_t seed);

// Every series' last C + H points (its held-out tail is the last H).
SeriesWindows tail_windows(const std::vector<std::vector<double>>& series, const SeriesTokenizer& tokenizer,
                           int64_t context_length, int64_t horizon);

}  // namespace hm::data
