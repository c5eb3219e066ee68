// `harmonic forecast`'s library side: forecasts for the series (columns) of a CSV file from a
// chronos model, written as a CSV of the median and quantiles per step, drawn as history plus
// forecast fan, and optionally scored on the series' own held-out tails.
//
// Input rules (each violation is an hm::Error naming the file and column):
//   - a header line names the columns (a file whose first line is all numbers has none: its
//     columns are "0", "1", ...); without --column every numeric column is a series (text
//     columns such as dates are skipped and reported)
//   - missing values (empty cells, NA, null, nan) are NaN: leading and trailing ones are
//     trimmed (columns of different lengths), inner ones stay NaN and are fed to the model
//     as PAD tokens with attention mask 0 (Chronos' handling of gaps)
//   - a series needs kMinObserved observed values (plus the horizon with eval)
//   - dates: the CSV's date column (--date-column, or else the first text column whose cells
//     read as evenly spaced dates, data/dates.h) labels the forecast rows and the plot's x axis,
//     extended past the last row by its step; without one the rows are numbered steps
//   - a constant series is forecast like any other (mean scaling maps it to +-1, or keeps 0);
//     a note says so, and with eval its MASE is undefined (zero seasonal-naive error) and it is
//     left out of the relative scores
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/data/dates.h"
#include "harmonic/models/chronos.h"
#include "harmonic/nn/forecast_metrics.h"

namespace hm::train {

inline constexpr int64_t kMinObserved = 5;

struct ForecastCsvOptions {
  std::string csv;                   // input file
  std::vector<std::string> columns;  // empty: every numeric column
  char delimiter = ',';
  int64_t horizon = 16;
  int64_t samples = 20;
  int64_t context = 0;  // history points the model reads (0: its training context_length)
  uint64_t seed = 0;
  int64_t top_k = 0;     // draw from the top_k most likely bins only (0: the whole pmf)
  std::string out;       // forecast CSV ("" : none)
  std::string plot;      // .png or .svg ("" : none); several series: one file per series, <stem>_<column><ext>
  std::string date_column;  // "" : the first text column that reads as evenly spaced dates, if any
  int64_t plot_history = -1;  // history points drawn: -1 = max(context, 3 x horizon), 0 = all
  bool eval = false;     // hold out the last horizon points of each series and score the forecast
  int64_t season_length = 1;  // m of MASE's seasonal-naive scale and of the naive baseline
};

struct ForecastCsvResult {
  std::vector<std::string> names;                 // the series
  std::vector<std::vector<double>> histories;     // what the model saw (trimmed; without the tail with eval)
  std::vector<int64_t> first_rows;                // each history's first data row in the file
  std::optional<data::DateAxis> dates;            // the date column's axis (row -> date), if any
  std::string date_column;                        // its name
  std::vector<std::vector<double>> truths;        // eval: the held-out tails
  std::vector<models::SeriesForecast> forecasts;  // one per series
  std::vector<nn::SeriesScores> scores;           // eval: per series
  std::optional<nn::RelativeScores> relative;     // eval: the aggregate
  std::vector<std::string> notes;                 // skipped columns, constant series, ...
  std::vector<std::string> plots;                 // files written
};

ForecastCsvResult forecast_csv(models::Chronos& model, const ForecastCsvOptions& options);

// The forecast CSV: series,step[,date],median,q0.1,...,q0.9[,actual].
std::string forecast_table(const ForecastCsvResult& result);

}  // namespace hm::train
