// The Chronos series tokenizer (data/series_tokenizer.h): mean scaling, uniform and
// mixed-precision bins, reserved PAD/EOS tokens, missing values.
#include <cmath>

#include "harmonic/data/series_rng.h"
#include "harmonic/data/series_tokenizer.h"
#include "tests/helpers.h"

using namespace hm;
using data::SeriesTokenizer;
using hm::test::throws_with;

TEST_CASE("SeriesTokenizer: uniform bins of [-15, 15] round trip within half a bin, never PAD/EOS") {
  SeriesTokenizer tok = SeriesTokenizer::uniform(4096);
  CHECK(tok.n_tokens() == 4096);
  CHECK(tok.bins() == 4094);
  const double width = 30.0 / 4094;
  CHECK(tok.centres().front() == doctest::Approx(-15 + width / 2));
  CHECK(tok.centres().back() == doctest::Approx(15 - width / 2));
  data::SeriesRng rng(1);
  for (int i = 0; i < 20000; ++i) {
    const double scale = 0.1 + 10 * rng.uniform();
    const double x = (-15 + 30 * rng.uniform()) * scale;
    const int64_t token = tok.token_of(x, scale);
    REQUIRE(token >= 2);
    REQUIRE(token < 4096);
    CHECK(std::abs(tok.value_of_bin(token - 2, scale) - x) <= width / 2 * scale * (1 + 1e-9));
  }
  // Beyond the range: the end bins, still no special token.
  CHECK(tok.token_of(1e9, 1.0) == 4095);
  CHECK(tok.token_of(-1e9, 1.0) == 2);
  CHECK(tok.token_of(0.0, 1.0) == 2 + 2047);  // 0 is the boundary between the two middle bins: the upper one
  CHECK(tok.token_of(NAN, 1.0) == SeriesTokenizer::kPad);
  CHECK(tok.token_of(INFINITY, 1.0) == SeriesTokenizer::kPad);
}

TEST_CASE("SeriesTokenizer: contexts are mean-scaled, left-padded, NaN -> PAD with mask 0, EOS last") {
  SeriesTokenizer tok = SeriesTokenizer::uniform(4096);
  SeriesTokenizer::Context c = tok.encode_context({1.0, NAN, -3.0, 2.0}, 6);
  CHECK(c.scale == doctest::Approx(2.0));  // mean |x| of the finite values: (1 + 3 + 2) / 3
  REQUIRE(c.ids.size() == 7);
  CHECK(c.ids[0] == SeriesTokenizer::kPad);
  CHECK(c.ids[1] == SeriesTokenizer::kPad);
  CHECK(c.ids[2] == tok.token_of(1.0, 2.0));
  CHECK(c.ids[3] == SeriesTokenizer::kPad);
  CHECK(c.ids[6] == SeriesTokenizer::kEos);
  CHECK(c.mask == std::vector<uint8_t>{0, 0, 1, 0, 1, 1, 1});
  CHECK(tok.value_of_bin(tok.bin_of(-3.0 / 2.0), 2.0) == doctest::Approx(-3.0).epsilon(1e-3));
  // Only the last `length` values count; an all-zero context has scale 1.
  CHECK(tok.encode_context({100.0, 1.0, 1.0}, 2).scale == 1.0);
  CHECK(tok.encode_context({0.0, 0.0, 0.0}, 3).scale == 1.0);
  CHECK(tok.encode_labels({2.0, NAN}, 2.0) == std::vector<int64_t>{tok.bin_of(1.0), SeriesTokenizer::kIgnoreLabel});
}

TEST_CASE("SeriesTokenizer: mixed-precision bins are monotone, dense where stated, and round trip to the nearest centre") {
  const double dense_low = -1.0, dense_high = 10.0, d = 0.2;
  SeriesTokenizer tok = SeriesTokenizer::mixed(4096, dense_low, dense_high, d);
  const std::vector<double>& c = tok.centres();
  REQUIRE(c.size() == 4094);
  for (size_t i = 1; i < c.size(); ++i) REQUIRE(c[i] > c[i - 1]);
  for (size_t i = 1; i < tok.boundaries().size(); ++i) REQUIRE(tok.boundaries()[i] > tok.boundaries()[i - 1]);
  int64_t dense = 0;
  for (double x : c) dense += x > dense_low && x < dense_high;
  const auto sparse_expected = static_cast<int64_t>(std::floor(d * 4094));  // floor(d m) sparse bins
  CHECK(std::abs((4094 - dense) - sparse_expected) <= 2);
  // Bins are 11 / 3276 wide inside, 19 / 818 outside: about 6.9x finer in the dense interval.
  CHECK((c[2000] - c[1999]) * 6 < c[1] - c[0]);
  data::SeriesRng rng(2);
  for (int i = 0; i < 5000; ++i) {
    const double x = -15 + 30 * rng.uniform();
    const int64_t token = tok.token_of(x, 1.0);
    REQUIRE(token >= 2);
    const double back = tok.value_of_bin(token - 2, 1.0);
    const int64_t b = token - 2;  // nearest centre: no neighbour is closer
    if (b > 0) CHECK(std::abs(back - x) <= std::abs(c[b - 1] - x));
    if (b + 1 < tok.bins()) CHECK(std::abs(back - x) <= std::abs(c[b + 1] - x));
    // Within half of the local bin spacing.
    const double spacing = std::max(b > 0 ? c[b] - c[b - 1] : 0.0, b + 1 < tok.bins() ? c[b + 1] - c[b] : 0.0);
    CHECK(std::abs(back - x) <= spacing / 2 + 1e-12);
  }
  CHECK(throws_with([] { SeriesTokenizer::mixed(4096, 5.0, 1.0); }, {"SeriesTokenizer::mixed", "dense_low"}));
  CHECK(throws_with([] { SeriesTokenizer::mixed(4096, -1.0, 1.0, 1.5); }, {"sparse_fraction"}));
}

TEST_CASE("estimate_dense_interval: quantiles of the scaled training values") {
  std::vector<std::vector<double>> series;
  data::SeriesRng rng(3);
  for (int s = 0; s < 20; ++s) {
    std::vector<double> x;
    for (int t = 0; t < 200; ++t) x.push_back(5.0 + rng.normal());  // scale ~5, scaled values ~ N(1, 0.2^2)
    series.push_back(x);
  }
  auto [a, b] = data::estimate_dense_interval(series, 64, 0.005, 0.995);
  CHECK(a == doctest::Approx(1 - 2.58 * 0.2).epsilon(0.1));
  CHECK(b == doctest::Approx(1 + 2.58 * 0.2).epsilon(0.1));
  SeriesTokenizer tok = SeriesTokenizer::mixed(4096, a, b);
  CHECK(tok.bins() == 4094);
}
