#include "harmonic/tools/tasks/chronos_real_series.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harmonic/core/error.h"
#include "harmonic/tools/tasks/chronos_forecast_input.h"

namespace hm::train {

RealSeries read_real_series(const std::string& dir) {
  constexpr std::string_view fn = "read_real_series";
  namespace fs = std::filesystem;
  check(fs::is_directory(dir), fn, "'{}' is not a directory (one CSV per series; see "
                                   "tools/studies/chronos/real_series/export_split.py)", dir);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  check(!files.empty(), fn, "'{}' holds no .csv file", dir);
  RealSeries out;
  for (const fs::path& file : files) {
    ForecastCsvOptions o;
    o.csv = file.string();
    ForecastInput in = read_forecast_input(o);
    for (size_t c = 0; c < in.names.size(); ++c) {
      const std::vector<double>& col = in.columns[c];
      auto first = std::find_if(col.begin(), col.end(), [](double v) { return std::isfinite(v); });
      auto last = std::find_if(col.rbegin(), col.rend(), [](double v) { return std::isfinite(v); }).base();
      if (first >= last) continue;  // no observed value
      out.names.push_back(in.names.size() == 1 ? file.stem().string() : file.stem().string() + "/" + in.names[c]);
      out.values.emplace_back(first, last);
    }
  }
  check(!out.values.empty(), fn, "'{}': none of its {} CSV files has an observed value", dir, files.size());
  return out;
}

std::vector<double> left_padded(const std::vector<double>& x, int64_t C, int64_t H, int64_t min_past) {
  check(C >= 1 && H >= 1 && min_past >= 1 && min_past <= C, "left_padded",
        "need context_length, horizon >= 1 and 1 <= min_past <= context_length, got {}, {}, {}", C, H, min_past);
  const int64_t n = std::ssize(x);
  int64_t pad = C - min_past;
  pad = std::max(pad, C + H - n);  // at least one whole window
  if (pad <= 0) return x;
  std::vector<double> out(static_cast<size_t>(pad), NAN);
  out.insert(out.end(), x.begin(), x.end());
  return out;
}

}  // namespace hm::train
