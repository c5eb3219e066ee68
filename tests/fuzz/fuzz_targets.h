// Fuzz targets: one plain function per parser reachable from a file or the command line,
//   int fuzz_<parser>(const uint8_t* data, size_t size)
// each calling the function the CLI calls on the bytes (written to a temporary file when that
// function takes a path). A clean rejection is an hm::Error (caught here, return 0); anything
// else escaping (std::bad_alloc, std::out_of_range, a bare nlohmann::json error) or a crash is
// a bug of the parser. libfuzzer_main.cpp wraps one target for clang's libFuzzer;
// tests/train/test_fuzz_replay.cpp replays tests/fuzz/corpus/<parser>/ through every target.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/core/error.h"

namespace hm::fuzz {

using FuzzFn = int (*)(const uint8_t* data, size_t size);

struct FuzzTarget {
  const char* name;  // the corpus folder's name: tests/fuzz/corpus/<name>/
  FuzzFn fn;
  const char* what;  // the entry point it drives
};

// Every target, in the order of the README's table.
const std::vector<FuzzTarget>& fuzz_targets();

int fuzz_safetensors(const uint8_t* data, size_t size);
int fuzz_checkpoint(const uint8_t* data, size_t size);
int fuzz_resume(const uint8_t* data, size_t size);
int fuzz_idx(const uint8_t* data, size_t size);
int fuzz_csv(const uint8_t* data, size_t size);
int fuzz_config(const uint8_t* data, size_t size);
int fuzz_study_results(const uint8_t* data, size_t size);
int fuzz_metrics(const uint8_t* data, size_t size);
int fuzz_text(const uint8_t* data, size_t size);
int fuzz_tokenizer(const uint8_t* data, size_t size);
int fuzz_op_attrs(const uint8_t* data, size_t size);
int fuzz_forecast_csv(const uint8_t* data, size_t size);
int fuzz_arcade_dataset(const uint8_t* data, size_t size);

// A per-process scratch directory (created on first use, under the system temp dir).
const std::string& scratch_dir();
// Writes the bytes to scratch_dir()/name and returns the path.
std::string write_scratch(const std::string& name, std::string_view bytes);

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input cut at '\0' bytes: several fields from one byte string (a config file, then --set
// strings; an op name, then its attributes). Empty parts are kept.
std::vector<std::string> split_fields(std::string_view bytes, size_t max_fields);

// Runs f; an hm::Error is a clean rejection of the input. Everything else propagates.
template <class F>
int reject_errors(F&& f) {
  try {
    f();
  } catch (const hm::Error&) {
  }
  return 0;
}

}  // namespace hm::fuzz
