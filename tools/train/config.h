// Run configurations: a task's JSON defaults, updated by a --config file and by
// --set key=value overrides. The defaults fix the schema: every key must exist in them
// (dotted keys address nested objects, "trainer.steps"), and a value must have the
// default's JSON type (an integer where a float is expected is fine, not the reverse).
// Mistakes raise hm::Error naming the key, the expected type and, for unknown keys, the
// valid ones.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hm::train {

using Json = nlohmann::json;

// The dotted names of every non-object value, in the object's (sorted) order.
std::vector<std::string> config_keys(const Json& config);

// Applies "key=value": the value text is read as the existing value's type (integers,
// floats, true/false, strings as written, arrays/objects as JSON).
void apply_override(Json& config, const std::string& assignment);

// Merges `update` (a JSON object) into `config` recursively with the same checks; `source`
// names it in messages (a file path).
void merge_config(Json& config, const Json& update, const std::string& source);

// Reads a JSON file (an object) and merges it.
void merge_config_file(Json& config, const std::string& path);

// The value at a dotted key; throws listing the valid keys when absent.
const Json& config_at(const Json& config, const std::string& key);

// A run's config: `base` (a task's default_config, or a checkpoint's config when resuming),
// updated by the --config file (when not empty), then by each --set in order.
Json resolve_config(Json base, const std::string& config_file, const std::vector<std::string>& sets);

}  // namespace hm::train
