// The one way Harmonic parses JSON it is handed (options, config and study files, results and
// metrics logs, saved models, safetensors headers, checkpoint metadata): nesting is bounded
// before nlohmann builds the tree. nlohmann's parser itself takes any depth, but its dump(),
// operator== and Harmonic's own walks recurse once per level, so `[[[...]]]` 60,000 deep
// would overflow the stack instead of giving an error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hm {

// The deepest nesting of arrays and objects any reader accepts; Harmonic's own files stay
// under 10.
inline constexpr int64_t kMaxJsonDepth = 64;
// What parse_json reads from a stream at most: far above any config or study file.
inline constexpr size_t kMaxJsonStreamBytes = size_t{64} << 20;

// The deepest nesting of '[' and '{' in text; brackets inside strings (escapes included) do
// not count. Exact for any text nlohmann accepts, and for every prefix it reads before an error.
int64_t json_depth(std::string_view text);

// Throws hm::Error "[fn] <source>: JSON nested N levels deep, beyond the limit of 64 (...)"
// when text nests deeper than kMaxJsonDepth. source says where the text came from, as the
// message should show it ("'run/config.json'", "--attrs").
void check_json_depth(std::string_view text, std::string_view fn, std::string_view source);

// check_json_depth, then Json::parse(text). A syntax error stays nlohmann's parse_error, for
// the caller to word as it words its other errors.
template <class Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view fn, std::string_view source) {
  check_json_depth(text, fn, source);
  return Json::parse(text);
}

// The rest of the stream (at most kMaxJsonStreamBytes, else an hm::Error naming source), then
// parse_json.
std::string read_json_stream(std::istream& in, std::string_view fn, std::string_view source);
template <class Json = nlohmann::json>
Json parse_json(std::istream& in, std::string_view fn, std::string_view source) {
  return parse_json<Json>(read_json_stream(in, fn, source), fn, source);
}

}  // namespace hm
