// Chronos tokenization of real-valued series (Ansari et al., 2024, section 3.1): mean scaling,
// then quantisation into bins, with two reserved tokens.
//
//   token 0 = PAD (a missing value: NaN or +-inf; its attention mask is 0), token 1 = EOS
//   (appended to every context), tokens 2 .. n_tokens-1 = the n_tokens - 2 bins.
//   scale  = mean |x| over the context's finite values (1 when there are none or all are 0)
//   bin    = the bin whose centre is nearest to x / scale (bin boundaries are the midpoints
//            between neighbouring centres; values beyond [low, high] land in the end bins)
//   value  = centre(bin) * scale
// Uniform binning: n_tokens - 2 equal bins of [low, high] = [-15, 15], centres at their
// middles. Mixed-precision binning (Fourier head paper section 2.3): floor(d * bins) bins for
// the sparse intervals [low, dense_low] and [dense_high, high], the rest for the dense
// interval [dense_low, dense_high], which is estimated from quantiles of the training data's
// scaled values (estimate_dense_interval); centres from mixed_precision_bin_centres.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::data {

class SeriesTokenizer {
 public:
  static constexpr int64_t kPad = 0, kEos = 1, kSpecialTokens = 2;
  static constexpr int64_t kIgnoreLabel = -100;  // a missing target in the labels

  // From increasing bin centres (n_tokens - 2 of them) within [low, high].
  SeriesTokenizer(std::vector<double> centres, double low = -15.0, double high = 15.0);
  static SeriesTokenizer uniform(int64_t n_tokens = 4096, double low = -15.0, double high = 15.0);
  // sparse_fraction d in (0, 1); low < dense_low < dense_high < high.
  static SeriesTokenizer mixed(int64_t n_tokens, double dense_low, double dense_high, double sparse_fraction = 0.2,
                               double low = -15.0, double high = 15.0);

  int64_t n_tokens() const { return bins() + kSpecialTokens; }
  int64_t bins() const { return static_cast<int64_t>(centres_.size()); }
  const std::vector<double>& centres() const { return centres_; }
  const std::vector<double>& boundaries() const { return boundaries_; }  // (bins - 1) inner boundaries
  double low() const { return low_; }
  double high() const { return high_; }

  int64_t bin_of(double scaled) const;  // finite scaled value -> bin in [0, bins)
  // value -> token: PAD for a non-finite value, else bin_of(value / scale) + 2.
  int64_t token_of(double value, double scale) const;
  double value_of_bin(int64_t bin, double scale) const;  // centre(bin) * scale

  struct Context {
    std::vector<int64_t> ids;   // (length + 1): left PAD padding, the values' tokens, EOS
    std::vector<uint8_t> mask;  // (length + 1): 0 at PAD
    double scale = 1;
  };
  // The last `length` values of `history` (left-padded with PAD when shorter), scaled by their
  // own mean |x|, then EOS.
  Context encode_context(const std::vector<double>& history, int64_t length) const;
  // Future values -> bin labels with the context's scale (kIgnoreLabel where missing).
  std::vector<int64_t> encode_labels(const std::vector<double>& values, double scale) const;

 private:
  std::vector<double> centres_, boundaries_;
  double low_, high_;
};

// The dense interval of mixed binning: the lower_q and upper_q quantiles of every series'
// values scaled by the mean |x| of its first `context_length` points (the scale a context
// there would get), clamped into [low + margin, high - margin] with margin = (high - low) / 100.
std::pair<double, double> estimate_dense_interval(const std::vector<std::vector<double>>& series,
                                                  int64_t context_length, double lower_q = 0.005,
                                                  double upper_q = 0.995, double low = -15.0, double high = 15.0);

// Chronos-style mixed-precision bin centres (float64, (bins)): the dense interval [mid1, mid2]
// gets 1 / sparse_density times more bins per unit length than [low, mid1] and [mid2, high].
// Each interval is split into equal bins; the result is their midpoints, concatenated (so
// sorted, no duplicates). Every interval gets at least one bin.
Tensor mixed_precision_bin_centres(int64_t bins, double low = -15.0, double mid1 = -1.0, double mid2 = 10.0,
                                   double high = 15.0, double sparse_density = 0.2);

}  // namespace hm::data
