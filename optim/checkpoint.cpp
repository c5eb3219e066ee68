// Checkpoints: model + optimizer + generators + step/config in one atomic safetensors file.
#include "harmonic/optim/checkpoint.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/core/safetensors.h"

namespace hm::optim {
namespace {

constexpr const char* kFormat = "harmonic.checkpoint";
constexpr const char* kVersion = "1";
constexpr const char* kModel = "model.";
constexpr const char* kOptim = "optim.";

using Json = nlohmann::json;

Json generator_json(const Generator& g) { return Json::array({g.seed(), g.offset()}); }

void check_generators(const NamedGenerators& gens, std::string_view fn) {
  std::set<std::string> names;
  for (const auto& [name, g] : gens) {
    check(g != nullptr, fn, "generator '{}' is null", name);
    check(name != "default", fn, "generator name 'default' is reserved for hm::default_generator()");
    check(names.insert(name).second, fn, "generator '{}' is listed twice", name);
  }
}

Json metadata_json(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& path) {
  auto it = meta.find(key);
  check(it != meta.end(), "load_checkpoint", "'{}': no '{}' metadata (not a complete checkpoint)", path, key);
  try {
    return parse_json(it->second, "load_checkpoint", fmt::format("'{}': metadata '{}'", path, key));
  } catch (const Json::exception& e) {
    throw_error("load_checkpoint", fmt::format("'{}': metadata '{}' is not valid JSON: {}", path, key, e.what()));
  }
}

// Checks the format marker and decodes step/epoch/config/extra.
CheckpointInfo decode_info(const std::map<std::string, std::string>& meta, const std::string& path) {
  auto format = meta.find("format");
  check(format != meta.end() && format->second == kFormat, "load_checkpoint",
        "'{}' is not a Harmonic checkpoint (metadata format is '{}', expected '{}')", path,
        format == meta.end() ? "" : format->second, kFormat);
  auto version = meta.find("version");
  check(version != meta.end() && version->second == kVersion, "load_checkpoint",
        "'{}': unsupported checkpoint version '{}' (this build reads version {})", path,
        version == meta.end() ? "" : version->second, kVersion);
  CheckpointInfo info;
  Json step = metadata_json(meta, "step", path), epoch = metadata_json(meta, "epoch", path);
  check(step.is_number_integer() && epoch.is_number_integer(), "load_checkpoint",
        "'{}': step and epoch must be integers, got {} and {}", path, step.dump(), epoch.dump());
  info.step = step.get<int64_t>();
  info.epoch = epoch.get<int64_t>();
  // A hand-edited or corrupted header: a negative count would index the loader backwards.
  check(info.step >= 0 && info.epoch >= 0, "load_checkpoint", "'{}': step {} and epoch {} must not be negative", path,
        info.step, info.epoch);
  info.config = metadata_json(meta, "config", path);
  info.extra = metadata_json(meta, "extra", path);
  return info;
}

// Reads the 8-byte length and the JSON header of a safetensors file, not the data.
std::map<std::string, std::string> read_metadata(const std::string& path) {
  check_readable_file(path, "read_checkpoint_info");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  check(f != nullptr, "read_checkpoint_info", "'{}': cannot open: {}", path, std::strerror(errno));
  uint64_t n = 0;
  check(std::fread(&n, 8, 1, f.get()) == 1 && n <= 100'000'000, "read_checkpoint_info",
        "'{}': truncated or not a safetensors file", path);
  // A length beyond the file is refused before its buffer is allocated (up to 100 MB otherwise).
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  check(!ec && n <= size - 8, "read_checkpoint_info", "'{}': header length {} is beyond the file's {} bytes", path, n,
        ec ? 0 : size);
  std::string header(n, '\0');
  check(std::fread(header.data(), 1, n, f.get()) == n, "read_checkpoint_info", "'{}': truncated header", path);
  std::map<std::string, std::string> meta;
  try {
    Json root = parse_json(header, "read_checkpoint_info", fmt::format("'{}': header", path));
    if (root.contains("__metadata__"))
      for (const auto& [k, v] : root["__metadata__"].items()) meta[k] = v.get<std::string>();
  } catch (const Json::exception& e) {
    throw_error("read_checkpoint_info", fmt::format("'{}': bad header: {}", path, e.what()));
  }
  return meta;
}

}  // namespace

void save_checkpoint(const std::string& path, const TrainingState& state, const CheckpointInfo& info) {
  check(state.model != nullptr, "save_checkpoint", "no model given");
  check_generators(state.generators, "save_checkpoint");
  NamedTensors tensors;
  for (const auto& [name, t] : state.model->state_dict()) tensors.emplace_back(kModel + name, t);
  Json rng = Json::object();
  rng["default"] = generator_json(default_generator());
  for (const auto& [name, g] : state.generators) rng[name] = generator_json(*g);
  std::map<std::string, std::string> meta{{"format", kFormat},
                                          {"version", kVersion},
                                          {"step", std::to_string(info.step)},
                                          {"epoch", std::to_string(info.epoch)},
                                          {"config", info.config.dump()},
                                          {"extra", info.extra.dump()},
                                          {"rng", rng.dump()}};
  if (state.optimizer) {
    for (const auto& [name, t] : state.optimizer->state_tensors()) tensors.emplace_back(kOptim + name, t);
    meta["optimizer"] = state.optimizer->state_json().dump();
  }
  save_safetensors(path, tensors, meta);
}

CheckpointInfo load_checkpoint(const std::string& path, const TrainingState& state) {
  check(state.model != nullptr, "load_checkpoint", "no model given");
  check_generators(state.generators, "load_checkpoint");
  SafetensorsFile file = load_safetensors(path);
  CheckpointInfo info = decode_info(file.metadata, path);

  // Split the tensors by prefix; anything else is foreign.
  std::map<std::string, Tensor> model_in;
  NamedTensors optim_in;
  std::vector<std::string> foreign;
  for (const auto& [name, t] : file.tensors) {
    if (name.starts_with(kModel))
      model_in.emplace(name.substr(std::strlen(kModel)), t);
    else if (name.starts_with(kOptim))
      optim_in.emplace_back(name.substr(std::strlen(kOptim)), t);
    else
      foreign.push_back(name);
  }

  // Validate the model state before touching anything, naming every offending tensor.
  std::vector<std::string> missing, mismatched, unexpected = foreign;
  std::set<std::string> own;
  for (const auto& [name, t] : state.model->state_dict()) {
    own.insert(name);
    auto it = model_in.find(name);
    if (it == model_in.end())
      missing.push_back(kModel + name);
    else if (it->second.shape() != t.shape())
      mismatched.push_back(
          fmt::format("{}{} (model {}, file {})", kModel, name, str(t.shape()), str(it->second.shape())));
  }
  for (const auto& [name, t] : model_in)
    if (!own.count(name)) unexpected.push_back(kModel + name);
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty())
    throw_error("load_checkpoint",
                fmt::format("'{}' does not match the model: missing [{}]; unexpected [{}]; shape mismatch [{}]", path,
                            fmt::join(missing, ", "), fmt::join(unexpected, ", "), fmt::join(mismatched, ", ")));

  Json rng = metadata_json(file.metadata, "rng", path);
  for (const auto& [name, g] : state.generators)
    check(rng.contains(name), "load_checkpoint", "'{}' has no state for generator '{}' (it has: {})", path, name,
          rng.dump());

  // The optimizer validates everything before it changes its state; then the model.
  if (state.optimizer) {
    check(file.metadata.count("optimizer"), "load_checkpoint", "'{}' holds no optimizer state", path);
    try {
      state.optimizer->load_state(optim_in, metadata_json(file.metadata, "optimizer", path));
    } catch (const Error& e) {
      throw_error("load_checkpoint", fmt::format("'{}': optimizer state: {}", path, e.what()));
    }
  }
  NamedTensors model_state(model_in.begin(), model_in.end());
  state.model->load_state_dict(model_state, true);

  try {
    auto restore = [&](Generator& g, const Json& v) { g.set_state(v.at(0).get<uint64_t>(), v.at(1).get<uint64_t>()); };
    restore(default_generator(), rng.at("default"));
    for (const auto& [name, g] : state.generators) restore(*g, rng.at(name));
  } catch (const Json::exception& e) {
    throw_error("load_checkpoint", fmt::format("'{}': malformed rng state {}: {}", path, rng.dump(), e.what()));
  }
  return info;
}

CheckpointInfo read_checkpoint_info(const std::string& path) { return decode_info(read_metadata(path), path); }

}  // namespace hm::optim
