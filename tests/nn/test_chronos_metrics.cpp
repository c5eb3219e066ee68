// Forecast metrics (nn/forecast_metrics.h) against hand-computed cases.
#include <cmath>

#include "harmonic/nn/forecast_metrics.h"
#include "tests/helpers.h"

using namespace hm;

TEST_CASE("MASE: seasonal-naive in-sample scale, fallback to m = 1 on short histories") {
  // history 1 3 2 4 3 5 with m = 2: |2-1| |4-3| |3-2| |5-4| -> scale 1.
  const std::vector<double> hist = {1, 3, 2, 4, 3, 5};
  CHECK(nn::seasonal_naive_scale(hist, 2) == doctest::Approx(1.0));
  // m = 1: |2| |1| |2| |1| |2| -> 8 / 5.
  CHECK(nn::seasonal_naive_scale(hist, 1) == doctest::Approx(1.6));
  // truth 4 6, forecast 5 5: mean error 1 -> MASE 1 / 1.
  CHECK(nn::mase(hist, {4, 6}, {5, 5}, 2) == doctest::Approx(1.0));
  CHECK(nn::mase(hist, {4, 6}, {5, 5}, 1) == doctest::Approx(1.0 / 1.6));
  // m = 6 needs 7 points: falls back to m = 1.
  CHECK(nn::effective_season(6, 6) == 1);
  CHECK(nn::effective_season(7, 6) == 6);
  CHECK(nn::mase(hist, {4, 6}, {5, 5}, 6) == doctest::Approx(1.0 / 1.6));
  // Missing truth points are skipped; a constant history has scale 0 -> NaN.
  CHECK(nn::mase(hist, {4, NAN}, {5, 0}, 2) == doctest::Approx(1.0));
  CHECK(std::isnan(nn::mase({2, 2, 2}, {2}, {3}, 1)));
  // The seasonal-naive forecast repeats the last season.
  CHECK(nn::seasonal_naive_forecast(hist, 5, 2) == std::vector<double>{3, 5, 3, 5, 3});
  CHECK(nn::seasonal_naive_forecast(hist, 2, 1) == std::vector<double>{5, 5});
  // A missing value in the last season: that season's latest observed value stands in.
  CHECK(nn::seasonal_naive_forecast({1, 2, 3, NAN}, 3, 2) == std::vector<double>{3, 2, 3});
  CHECK(std::isnan(nn::seasonal_naive_forecast({NAN, 2, NAN, 4}, 1, 2)[0]));
}

TEST_CASE("WQL: 2 * pinball / sum |y| averaged over the quantile levels") {
  const std::vector<double> y = {2, 4};
  // One level q = 0.5, forecast 3 3: pinball 0.5 * 1 + 0.5 * 1 = 1 -> 2 * 1 / 6.
  CHECK(nn::wql(y, {{3, 3}}, {0.5}) == doctest::Approx(2.0 / 6.0));
  // q = 0.1 forecast 3 3: u = -1 -> 0.9, u = 1 -> 0.1: sum 1.0 -> 2 / 6; q = 0.9: same sum -> mean 2 / 6.
  CHECK(nn::wql(y, {{3, 3}, {3, 3}}, {0.1, 0.9}) == doctest::Approx(2.0 / 6.0));
  // q = 0.9, forecast 0 0 (under-forecast): 0.9 * (2 + 4) = 5.4 -> 2 * 5.4 / 6 = 1.8.
  CHECK(nn::wql(y, {{0, 0}}, {0.9}) == doctest::Approx(1.8));
  // A perfect forecast scores 0; an all-zero truth is undefined.
  CHECK(nn::wql(y, {{2, 4}}, {0.3}) == 0.0);
  CHECK(std::isnan(nn::wql({0, 0}, {{1, 1}}, {0.5})));
  // For a point forecast (every quantile equal) the mean over 0.1..0.9 is sum |e| / sum |y| (the
  // levels' q and 1 - q pair up to 1 per level on average).
  const auto levels = nn::forecast_quantile_levels();
  CHECK(levels.size() == 9);
  CHECK(nn::wql(y, std::vector<std::vector<double>>(9, {3, 3}), levels) == doctest::Approx(2.0 / 6.0));
}

TEST_CASE("Relative scores: geometric means of model / seasonal-naive ratios") {
  CHECK(nn::geometric_mean({1, 4}) == doctest::Approx(2.0));
  CHECK(nn::geometric_mean({2, NAN, 0.0, 8}) == doctest::Approx(4.0));  // non-finite and 0 skipped
  CHECK(nn::sample_quantile({4, 1, 3, 2}, 0.5) == doctest::Approx(2.5));
  CHECK(nn::sample_quantile({4, 1, 3, 2}, 0.1) == doctest::Approx(1.3));
  CHECK(nn::sample_quantile({7}, 0.9) == 7.0);
  // Two series: ratios (0.5, 0.25) and (2, 1) -> geometric means 1 and 0.5.
  std::vector<nn::SeriesScores> s = {{.mase = 1, .wql = 0.5, .naive_mase = 2, .naive_wql = 2},
                                     {.mase = 4, .wql = 1, .naive_mase = 2, .naive_wql = 1},
                                     {.mase = 1, .wql = 1, .naive_mase = 0, .naive_wql = 0}};
  nn::RelativeScores r = nn::relative_scores(s);
  CHECK(r.relative_mase == doctest::Approx(1.0));
  CHECK(r.relative_wql == doctest::Approx(0.5));
  CHECK(r.series == 2);
  CHECK(r.skipped == 1);
  CHECK(r.mean_mase == doctest::Approx(2.5));
  // score_series: the naive baseline's MASE on hist 1 3 2 4 3 5 (m 2) with truth 3 5 is 0.
  nn::SeriesScores one = nn::score_series({1, 3, 2, 4, 3, 5}, {4, 6}, {4, 6}, std::vector<std::vector<double>>(9, {4, 6}), 2);
  CHECK(one.mase == 0.0);
  CHECK(one.naive_mase == doctest::Approx(1.0));  // naive 3 5 vs 4 6
  CHECK(one.naive_wql == doctest::Approx(2.0 / 10.0));
}
