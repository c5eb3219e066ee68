// Forecast accuracy as in the Chronos benchmark (Ansari et al., 2024, section 5.2 and
// Appendix D): MASE of the median forecast and the weighted quantile loss (WQL) over the
// quantiles 0.1 .. 0.9, each divided by the seasonal-naive forecast's score on the same series
// and aggregated by the geometric mean. Evaluation only: plain float64, NaN = missing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hm::nn {

// 0.1, 0.2, ..., 0.9.
std::vector<double> forecast_quantile_levels();

// The season length actually used: m, or 1 when the history has fewer than m + 1 points.
int64_t effective_season(int64_t history_length, int64_t m);

// Mean |y_t - y_{t-m}| over the history (pairs with a missing value skipped; NaN when none).
double seasonal_naive_scale(const std::vector<double>& history, int64_t m);

// The seasonal-naive forecast: y_{T+h} = y_{T+h-m*k} for the smallest k reaching the history
// (the last season repeated), or the smallest k after it whose value is observed (NaN when none
// is); m falls back to 1 as above.
std::vector<double> seasonal_naive_forecast(const std::vector<double>& history, int64_t horizon, int64_t m);

// mean_h |y_h - f_h| / seasonal_naive_scale(history, m) over the non-missing y_h (NaN when the
// scale is 0 or NaN, or no y_h is present).
double mase(const std::vector<double>& history, const std::vector<double>& truth, const std::vector<double>& forecast,
            int64_t m);

// WQL = mean over levels q of 2 sum_h rho_q(y_h - f_{q,h}) / sum_h |y_h|, where rho_q(u) =
// max(q u, (q - 1) u) is the pinball loss; quantile_forecasts[i] (H) is the forecast of levels[i].
// Missing y_h are skipped; NaN when sum |y_h| is 0.
double wql(const std::vector<double>& truth, const std::vector<std::vector<double>>& quantile_forecasts,
           const std::vector<double>& levels);

// exp(mean log x) over the finite, positive entries; NaN when there is none.
double geometric_mean(const std::vector<double>& values);

// The q-quantile of samples with linear interpolation between order statistics (NumPy's
// default); samples must be non-empty.
double sample_quantile(std::vector<double> samples, double q);

// One series' scores and the seasonal-naive baseline's on the same held-out tail.
struct SeriesScores {
  double mase = 0, wql = 0, naive_mase = 0, naive_wql = 0;
};
SeriesScores score_series(const std::vector<double>& history, const std::vector<double>& truth,
                          const std::vector<double>& median, const std::vector<std::vector<double>>& quantiles,
                          int64_t m);

// Chronos' aggregate: geometric means of model / naive ratios over the series where both are
// finite and positive (series whose naive score is 0 or undefined are counted in `skipped`).
struct RelativeScores {
  double relative_mase = 0, relative_wql = 0;  // < 1: better than seasonal naive
  double mean_mase = 0, mean_wql = 0;          // plain means over the counted series
  int64_t series = 0, skipped = 0;
};
RelativeScores relative_scores(const std::vector<SeriesScores>& scores);

// Each data set weighs the same (Chronos' benchmark aggregation): the geometric mean over groups
// of each group's relative scores; groups[i] names series i's data set. series counts the groups
// with a counted series, skipped the series left out; the plain means are over groups too.
RelativeScores relative_scores_by_group(const std::vector<SeriesScores>& scores,
                                        const std::vector<std::string>& groups);

}  // namespace hm::nn
