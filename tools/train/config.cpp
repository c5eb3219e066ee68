#include "harmonic/tools/train/config.h"

#include <charconv>
#include <fstream>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/error.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/train/did_you_mean.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {
namespace {

void collect_keys(const Json& j, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [k, v] : j.items()) {
    std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object() && !v.empty())
      collect_keys(v, key, out);
    else
      out.push_back(key);
  }
}

std::string type_label(const Json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  if (v.is_boolean()) return "boolean";
  return v.type_name();
}

[[noreturn]] void unknown_key(const Json& root, const std::string& key, const std::string& source) {
  std::vector<std::string> keys = config_keys(root);
  if (root.contains("trainer"))
    for (const auto& [late, value] : TrainerOptions::late_keys().items()) keys.push_back("trainer." + late);
  throw_error("config", fmt::format("{}unknown key '{}'{} (valid keys: {})", source.empty() ? "" : source + ": ", key,
                                    did_you_mean(key, keys), fmt::join(config_keys(root), ", ")));
}

// The slot of a dotted key inside root, or null when a component is missing.
Json* find_slot(Json& root, const std::string& key) {
  Json* cur = &root;
  size_t begin = 0;
  while (true) {
    size_t dot = key.find('.', begin);
    std::string part = key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
    if (dot == std::string::npos) return cur;
    begin = dot + 1;
  }
}

// A trainer key that default configs leave out (TrainerOptions::late_keys()), added to the
// trainer section with its default so that --set and config files can set it; null otherwise.
Json* late_trainer_key(Json& root, const std::string& key) {
  constexpr std::string_view kSection = "trainer.";
  if (!key.starts_with(kSection) || !root.contains("trainer") || !root["trainer"].is_object()) return nullptr;
  const std::string name = key.substr(kSection.size());
  const Json& late = TrainerOptions::late_keys();
  if (!late.contains(name)) return nullptr;
  return &(root["trainer"][name] = late.at(name));
}

// Checks that `value` may replace `like` (same JSON type; integers may fill floats).
Json typed(const Json& like, const Json& value, const std::string& key, const std::string& source) {
  auto fail = [&] {
    throw_error("config",
                fmt::format("{}key '{}' expects {} (default {}), got {} {}", source.empty() ? "" : source + ": ", key,
                            type_label(like), like.dump(), type_label(value), value.dump()));
  };
  if (like.is_null()) return value;
  if (like.is_number_float()) {
    if (!value.is_number()) fail();
    return value.get<double>();
  }
  if (like.is_number_unsigned() && value.is_number_integer() && !value.is_number_unsigned() && value.get<int64_t>() < 0)
    throw_error("config", fmt::format("{}key '{}' expects a non-negative integer (default {}), got {}",
                                      source.empty() ? "" : source + ": ", key, like.dump(), value.dump()));
  if (like.is_number_integer()) {
    if (!value.is_number_integer()) fail();
    return value;
  }
  if (like.is_array()) {
    if (!value.is_array()) fail();
    if (like.empty()) return value;
    Json out = Json::array();
    for (size_t i = 0; i < value.size(); ++i)
      out.push_back(typed(like[0], value[i], fmt::format("{}[{}]", key, i), source));
    return out;
  }
  if (like.type() != value.type()) fail();
  return value;
}

// Reads override text as the type of `like`.
Json parse_text(const Json& like, const std::string& text, const std::string& key) {
  auto fail = [&](const char* what) {
    throw_error("config", fmt::format("--set {}={}: expected {} (default {})", key, text, what, like.dump()));
  };
  if (like.is_string()) return text;
  if (like.is_boolean()) {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    fail("true or false");
  }
  if (like.is_number_integer()) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) fail("an integer");
    return typed(like, Json(v), key, "--set");
  }
  if (like.is_number_float()) {
    // from_chars for double: no locale, full match required ("1e-3", "0.5", "2").
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) fail("a number");
    return v;
  }
  Json parsed;
  try {
    parsed = parse_json(text, "config", fmt::format("--set {}", key));
  } catch (const Json::exception&) {
    fail(like.is_array() ? "a JSON array" : "a JSON value");
  }
  return typed(like, parsed, key, "--set");
}

}  // namespace

std::vector<std::string> config_keys(const Json& config) {
  std::vector<std::string> out;
  collect_keys(config, "", out);
  return out;
}

const Json& config_at(const Json& config, const std::string& key) {
  Json* slot = find_slot(const_cast<Json&>(config), key);
  if (!slot) unknown_key(config, key, "");
  return *slot;
}

void apply_override(Json& config, const std::string& assignment) {
  size_t eq = assignment.find('=');
  check(eq != std::string::npos && eq > 0, "config", "--set expects key=value, got '{}'", assignment);
  std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  Json* slot = find_slot(config, key);
  if (!slot) slot = late_trainer_key(config, key);
  if (!slot) unknown_key(config, key, "--set");
  if (slot->is_object() && !slot->empty()) {
    std::vector<std::string> inner;
    collect_keys(*slot, key, inner);
    throw_error("config", fmt::format("--set {}: '{}' is a section; set one of its keys: {}", assignment, key,
                                      fmt::join(inner, ", ")));
  }
  *slot = parse_text(*slot, text, key);
}

namespace {

// Merges the object `update` into `slot` (the section at dotted `path` of `root`) key by key,
// walking both along the update's own keys (a flattened "a.b" name would read a missing
// member of the update when a key itself holds a dot, and overflow the heap).
void merge_section(Json& root, Json& slot, const Json& update, const std::string& path, const std::string& source) {
  for (const auto& [k, value] : update.items()) {
    const std::string key = path.empty() ? k : path + "." + k;
    check(k.find('.') == std::string::npos, "config",
          "{}: key '{}' holds a dot; in a config file nest it as objects ({{\"trainer\": {{\"epochs\": 1}}}}), dotted "
          "names are for --set",
          source, key);
    if (!slot.is_object() || !slot.contains(k))
      if (path != "trainer" || !late_trainer_key(root, key)) unknown_key(root, key, source);
    Json& target = slot[k];
    if (target.is_object() && !target.empty()) {  // a section: merge into it
      if (!value.is_object())
        throw_error("config", fmt::format("{}: key '{}' is a section, got {}", source, key, value.dump()));
      merge_section(root, target, value, key, source);
      continue;
    }
    target = typed(target, value, key, source);
  }
}

}  // namespace

void merge_config(Json& config, const Json& update, const std::string& source) {
  check(update.is_object(), "config", "{}: expected a JSON object, got {}", source, update.type_name());
  merge_section(config, config, update, "", source);
}

void merge_config_file(Json& config, const std::string& path) {
  check_readable_file(path, "config");
  std::ifstream in(path);
  check(in.good(), "config", "cannot open config file '{}'", path);
  Json update;
  try {
    update = parse_json(in, "config", fmt::format("'{}'", path));
  } catch (const Json::exception& e) {
    throw_error("config", fmt::format("'{}' is not valid JSON: {}", path, e.what()));
  }
  merge_config(config, update, path);
}

Json resolve_config(Json base, const std::string& config_file, const std::vector<std::string>& sets) {
  if (!config_file.empty()) merge_config_file(base, config_file);
  for (const std::string& s : sets) apply_override(base, s);
  return base;
}

}  // namespace hm::train
