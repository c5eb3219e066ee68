// `harmonic forecast`'s library side: forecasts for the series (columns) of a CSV file from a
// chronos model, written as a CSV of the median and quantiles per step, drawn as history plus
// forecast fan, and optionally scored on the series' own held-out tails. A directory is read as
// one CSV per file, its series named <file stem>/<column> (or <file stem> alone for one series).
//
// Input rules (each violation is an hm::Error naming the file and column and the fix); each
// assumption made is one note:
//   - the delimiter (',', ';', tab, '|') and decimal mark ('.' or ',') are detected unless given
//     (data::detect_csv_dialect); a UTF-8 byte-order mark is dropped
//   - a header line names the columns (a file whose first line is all numbers has none: its
//     columns are "0", "1", ...); without --column every numeric column is a series except
//     those that number the rows (named year, index, time, ..., unnamed, or a first numeric
//     column beside others counting 0, 1, 2 ... or 1, 2, 3 ...) and keys (id, key, series, ...; a key with several
//     repeated values means a long file: an error); text columns such as dates are skipped and reported
//   - missing values (empty cells, NA, null, nan) are NaN: leading and trailing ones are
//     trimmed (columns of different lengths), inner ones stay NaN and are fed to the model
//     as PAD tokens with attention mask 0 (Chronos' handling of gaps)
//   - a series needs kMinObserved observed values (plus the horizon with eval)
//   - dates: the CSV's date column (--date-column, or else the first text column whose cells
//     read as dates, data/dates.h, or else a numeric column of years that numbers the rows)
//     labels the forecast rows and the plot's x axis, extended past the last row by its step; a
//     date missing from the column (a gap) is a missing value at its place on the axis; without
//     dates the rows are numbered steps
//   - season_length 0: the dates' season (12 monthly, 4 quarterly, 7 daily, ...), else 1
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
// 100 paths with quantiles from their mean pmf: on the validation series (real_series/split.tsv)
// the best WQL of 20 or 100 paths with either quantile source, averaged over four seeds, and the
// least spread between seeds; 0.8 s for a 144-point monthly series on 2 cores
// (tools/studies/chronos/real_series/record/).
inline constexpr int64_t kDefaultSamples = 100;

struct ForecastCsvOptions {
  std::string csv;                   // input file
  std::vector<std::string> columns;  // empty: every numeric column
  char delimiter = 0;                // 0: detected
  char decimal = 0;                  // '.' or ','; 0: detected
  int64_t horizon = 16;
  int64_t samples = kDefaultSamples;
  int64_t context = 0;  // history points the model reads (0: its training context_length)
  uint64_t seed = 0;
  int64_t top_k = 0;     // draw from the top_k most likely bins only (0: the whole pmf)
  bool pmf_quantiles = true;  // median and quantiles from the paths' mean pmf per step, not their values
  std::string out;       // forecast CSV ("" : none)
  std::string plot;      // .png or .svg ("" : none); several series: one file per series, <stem>_<column><ext>
  std::string date_column;  // "" : the first text column that reads as evenly spaced dates, if any
  int64_t plot_history = -1;  // history points drawn: -1 = max(context, 3 x horizon), 0 = all
  bool eval = false;     // hold out the last horizon points of each series and score the forecast
  int64_t season_length = 0;  // m of MASE's seasonal-naive scale and of the naive baseline; 0: from the dates
  std::string cuda_graph = "off";  // models::ForecastOptions::cuda_graph: off, on or auto
};

struct ForecastCsvResult {
  std::vector<std::string> names;                 // the series
  std::vector<int64_t> season_lengths;            // each series' m (from its file's dates or the options)
  std::vector<std::vector<double>> histories;     // what the model saw (trimmed; without the tail with eval)
  std::vector<int64_t> first_rows;                // each history's first data row in the file
  std::optional<data::DateAxis> dates;            // the date column's axis (row -> date), if any (one file)
  std::string date_column;                        // its name
  std::vector<std::vector<double>> truths;        // eval: the held-out tails
  std::vector<models::SeriesForecast> forecasts;  // one per series
  std::vector<nn::SeriesScores> scores;           // eval: per series
  std::optional<nn::RelativeScores> relative;     // eval: the aggregate
  std::vector<std::string> notes;                 // skipped columns, constant series, ...
  std::vector<std::string> plots;                 // files written
};

// options.csv: a CSV file, or a directory of them (*.csv, in name order).
ForecastCsvResult forecast_csv(models::Chronos& model, const ForecastCsvOptions& options);

// The forecast CSV: series,step[,date],median,q0.1,...,q0.9[,actual].
std::string forecast_table(const ForecastCsvResult& result);

}  // namespace hm::train
