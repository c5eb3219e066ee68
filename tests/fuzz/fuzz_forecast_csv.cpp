// Target "forecast_csv": `harmonic forecast --csv` (tools/tasks/chronos_forecast_csv.h) with a
// tiny untrained Chronos: the CSV's series with missing cells, trimming, too-short and constant
// series, forecast, written as the forecast table and drawn as SVG; with --eval, scored. The
// first byte picks the options a user could pass (eval, horizon, season length, one column).
#include "harmonic/models/chronos.h"
#include "tests/fuzz/fuzz_targets.h"
#include "harmonic/tools/tasks/chronos_forecast_csv.h"

namespace hm::fuzz {
namespace {

models::Chronos& fuzz_forecaster() {
  static Generator gen(11);
  static models::Chronos model = [] {
    models::ChronosConfig c;
    c.t5.vocab_size = 64;
    c.t5.d_model = 8, c.t5.d_kv = 4, c.t5.d_ff = 16, c.t5.num_layers = 1, c.t5.num_heads = 2;
    c.t5.dropout_rate = 0;
    c.context_length = 12;
    c.prediction_length = 4;
    return models::Chronos(c, data::SeriesTokenizer::uniform(64), &gen);
  }();
  return model;
}

}  // namespace

int fuzz_forecast_csv(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  train::ForecastCsvOptions options;
  options.csv = write_scratch("series.csv", as_text(data + 1, size - 1));
  options.horizon = 1 + (flags & 3);
  options.samples = 3;
  options.eval = (flags & 4) != 0;
  options.season_length = (flags >> 3) & 3;  // 0: from the dates
  if (flags & 32) options.columns = {"a"};
  if (flags & 64) options.plot = scratch_dir() + "/forecast.svg";
  options.out = scratch_dir() + "/forecast.csv";
  return reject_errors([&] {
    const train::ForecastCsvResult result = train::forecast_csv(fuzz_forecaster(), options);
    (void)train::forecast_table(result);
  });
}

}  // namespace hm::fuzz
