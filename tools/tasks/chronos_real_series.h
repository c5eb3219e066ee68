// Real series for the chronos task: every numeric series of every *.csv in a directory, read
// with `harmonic forecast`'s rules (chronos_forecast_input.h), leading and trailing missing
// values trimmed, inner ones kept as NaN (PAD tokens). tools/studies/chronos/real_series/
// export_split.py writes the train and validation directories of its split.tsv.
#pragma once
#include <string>
#include <vector>

namespace hm::train {

struct RealSeries {
  std::vector<std::string> names;              // <file stem>/<column>
  std::vector<std::vector<double>> values;     // one per name
};

// Throws naming the directory when it is missing or holds no *.csv, and naming the file when
// one of them cannot be read.
RealSeries read_real_series(const std::string& dir);

// x with NaN in front (PAD tokens) so that a window of context_length + horizon points may start
// wherever its context still holds min_past points of x (Chronos' min_past): context_length -
// min_past of them, or more when x is shorter than a whole window (its one window then sees
// fewer than min_past points).
std::vector<double> left_padded(const std::vector<double>& x, int64_t context_length, int64_t horizon,
                                int64_t min_past);

}  // namespace hm::train
