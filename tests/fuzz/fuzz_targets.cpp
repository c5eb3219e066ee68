// The table of fuzz targets and the scratch files they write their inputs to.
#include "tests/fuzz/fuzz_targets.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace hm::fuzz {

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> table{
      {"safetensors", fuzz_safetensors, "load_safetensors (core/safetensors.h)"},
      {"checkpoint", fuzz_checkpoint, "read_checkpoint_info + load_checkpoint into a model and Adam (optim/checkpoint.h)"},
      {"resume", fuzz_resume, "read_checkpoint_info + Trainer::resume of an mlp-spirals run (tools/train)"},
      {"idx", fuzz_idx, "read_idx, plain and gzip (data/idx.h)"},
      {"csv", fuzz_csv, "read_csv with header/column options from the first byte (data/csv.h)"},
      {"config", fuzz_config, "resolve_config: a --config file then --set strings, then TrainerOptions (tools/train)"},
      {"study_results", fuzz_study_results, "run_study --from: study.json + results.jsonl to a report (tools/studies)"},
      {"metrics", fuzz_metrics, "metrics_plot of a metrics.jsonl, rendered to SVG (tools/report)"},
      {"text", fuzz_text, "read_text + char/word tokenizers fit, encode, decode, LM blocks (data/text.h)"},
      {"tokenizer", fuzz_tokenizer, "load_tokenizer of a tokenizer.json, encode + decode (data/text.h)"},
      {"op_attrs", fuzz_op_attrs, "run_op: an op name then its --attrs JSON on the example inputs (ops/registry)"},
      {"forecast_csv", fuzz_forecast_csv, "forecast_csv: a CSV's series forecast, tabulated, plotted, scored (tools/tasks)"},
      {"arcade_dataset", fuzz_arcade_dataset, "load_offline_dataset + DT windows of a cached data set (data/arcade)"},
  };
  return table;
}

const std::string& scratch_dir() {
  static const std::string dir = [] {
    auto path = std::filesystem::temp_directory_path() / ("harmonic_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    static const std::string removed_at_exit = path.string();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removed_at_exit, ec);
    });
    return path.string();
  }();
  return dir;
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  check(out.good(), "fuzz", "cannot write the scratch file '{}'", path);
  return path;
}

std::vector<std::string> split_fields(std::string_view bytes, size_t max_fields) {
  std::vector<std::string> fields;
  size_t begin = 0;
  while (fields.size() + 1 < max_fields) {
    const size_t nul = bytes.find('\0', begin);
    if (nul == std::string_view::npos) break;
    fields.emplace_back(bytes.substr(begin, nul - begin));
    begin = nul + 1;
  }
  fields.emplace_back(bytes.substr(begin));
  return fields;
}

}  // namespace hm::fuzz
