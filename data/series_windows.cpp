#include "harmonic/data/series_windows.h"

#include "harmonic/core/factories.h"
#include "harmonic/data/series_rng.h"

namespace hm::data {
namespace {

struct WindowBuilder {
  WindowBuilder(const SeriesTokenizer& tokenizer, int64_t context_length, int64_t horizon)
      : tok(tokenizer), C(context_length), H(horizon) {}
  const SeriesTokenizer& tok;
  int64_t C, H;
  std::vector<int64_t> context, labels;
  int64_t count = 0;
  // The window of x starting at offset.
  void add(const std::vector<double>& x, int64_t offset) {
    std::vector<double> ctx(x.begin() + offset, x.begin() + offset + C);
    SeriesTokenizer::Context c = tok.encode_context(ctx, C);
    context.insert(context.end(), c.ids.begin(), c.ids.end());
    std::vector<int64_t> l =
        tok.encode_labels(std::vector<double>(x.begin() + offset + C, x.begin() + offset + C + H), c.scale);
    labels.insert(labels.end(), l.begin(), l.end());
    ++count;
  }
  SeriesWindows done(std::string_view fn, size_t series) const {
    check(count > 0, fn, "none of the {} series has the {} + {} points a window needs", series, C, H);
    return {from_vector(context, {count, C + 1}), from_vector(labels, {count, H})};
  }
};

}  // namespace

SeriesWindows random_windows(const std::vector<std::vector<double>>& series, const SeriesTokenizer& tok, int64_t C,
                             int64_t H, int64_t per_series, uint64_t seed) {
  check(C >= 1 && H >= 1 && per_series >= 1, "random_windows",
        "need context_length, horizon and windows_per_series >= 1, got {}, {}, {}", C, H, per_series);
  WindowBuilder b(tok, C, H);
  for (size_t i = 0; i < series.size(); ++i) {
    const int64_t room = std::ssize(series[i]) - (C + H);
    if (room < 0) continue;
    SeriesRng rng(mix_seed(seed, 30, i));
    for (int64_t w = 0; w < per_series; ++w) b.add(series[i], rng.below(room + 1));
  }
  return b.done("random_windows", series.size());
}

SeriesWindows tail_windows(const std::vector<std::vector<double>>& series, const SeriesTokenizer& tok, int64_t C,
                           int64_t H) {
  check(C >= 1 && H >= 1, "tail_windows", "need context_length and horizon >= 1, got {} and {}", C, H);
  WindowBuilder b(tok, C, H);
  for (const auto& x : series)
    if (std::ssize(x) >= C + H) b.add(x, std::ssize(x) - (C + H));
  return b.done("tail_windows", series.size());
}

}  // namespace hm::data
