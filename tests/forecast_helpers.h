// An untrained 1 + 1 layer chronos forecaster for the tests of `harmonic forecast`'s plumbing
// (tools/tasks/chronos_forecast_csv.h): its input handling is under test, not its accuracy.
#pragma once
#include <fstream>
#include <memory>
#include <string>

#include "harmonic/models/chronos.h"

namespace hm::test {

inline std::unique_ptr<models::Chronos> tiny_forecaster(Generator* gen) {
  models::ChronosConfig mc;
  mc.t5.vocab_size = 4096;
  mc.t5.d_model = 16, mc.t5.d_kv = 8, mc.t5.d_ff = 32, mc.t5.num_layers = 1, mc.t5.num_heads = 2;
  mc.context_length = 16;
  return std::make_unique<models::Chronos>(mc, data::SeriesTokenizer::uniform(4096), gen);
}

// Writes `text` to dir/name and returns the path.
inline std::string write_text(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace hm::test
