// One run of a study that sets a linear head against Fourier heads on one task (audio-bpm,
// decision-transformer): the head, the seed, the device and the task's config overrides. Its JSON
// is the run's config in results.jsonl, so a resumed study and its report read back what the plan
// wrote.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "harmonic/tools/studies/driver/run_config.h"

namespace hm::studies {

using Json = nlohmann::json;

// Linear (frequencies 0) or a Fourier head with N frequencies.
struct HeadChoice {
  int64_t frequencies = 0;
  bool fourier() const { return frequencies > 0; }
  std::string name() const;  // "linear", "fourier-8"
  Json task_keys() const;    // {"head": "linear"} or {"head": "fourier", "fourier_frequencies": 8}
  // Inverse of name(); throws naming `where` (the study) and the name.
  static HeadChoice parse(const std::string& name, std::string_view where);
};

struct HeadRunSpec {
  HeadChoice head;
  uint64_t seed = 1;
  std::string device = "cpu";
  Json task_config;  // overrides of the task's defaults (scale, head, seed)
  // "" in a study's main grid; else the ablation point the run belongs to ("model=L2-d64",
  // "data=50000"), which its label and report group carry.
  std::string ablation = "";
};

Json head_run_json(const HeadRunSpec& run);
// Throws naming `where` and the config when a key is missing or malformed.
HeadRunSpec head_run_from_json(const Json& j, std::string_view where);

}  // namespace hm::studies
