// Reading a study run's config back from results.jsonl (resume, report): nlohmann's key and type
// errors become one hm::Error that names the study and shows the config.
#pragma once
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "harmonic/core/error.h"

namespace hm::studies {

using Json = nlohmann::json;

// read() with a missing key or a wrong type in j turned into "where: malformed run config {j}: ...".
template <class Read>
auto read_run_config(const Json& j, std::string_view where, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const Json::exception& e) {
    throw_error(where, fmt::format("malformed run config {}: {}", j.dump(), e.what()));
  }
}

}  // namespace hm::studies
