// The series of a CSV file as `harmonic forecast` reads them (the rules are listed in
// chronos_forecast_csv.h): the dialect, the columns that are an axis or a key rather than a
// series, the date axis with its gaps, and the season the dates imply. Each assumption it makes
// is one note.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harmonic/data/dates.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"

namespace hm::train {

struct ForecastInput {
  std::vector<std::string> names;            // the series
  std::vector<std::vector<double>> columns;  // one per series, a value per row of the axis (NaN: missing)
  std::optional<data::DateAxis> dates;       // row -> date, if a column reads as dates
  std::string date_column;
  int64_t season_length = 1;       // options.season_length, or the dates' season when that is 0
  std::vector<std::string> notes;  // what was skipped or assumed, one line each
};

ForecastInput read_forecast_input(const ForecastCsvOptions& options);

}  // namespace hm::train
