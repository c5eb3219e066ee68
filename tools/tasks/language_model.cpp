#include "harmonic/tools/tasks/language_model.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/optim/checkpoint.h"
#include "harmonic/tools/tasks/fourier_kernel_config.h"
#include "harmonic/tools/tasks/kjv_lm.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kFormat = "harmonic.language_model";
const char* const kFiles[] = {"model.safetensors", "config.json", "tokenizer.json"};

const char* kernel_name(nn::AttentionKernel k) { return k == nn::AttentionKernel::Fourier ? "fourier" : "softmax"; }

Json read_json_file(const std::string& path, std::string_view fn) {
  check_readable_file(path, fn);
  std::ifstream in(path);
  try {
    return parse_json(in, fn, fmt::format("'{}'", path));
  } catch (const Json::exception& e) {
    throw_error(fn, fmt::format("'{}': not JSON: {}", path, e.what()));
  }
}

// The GPT of a trainer checkpoint's model tensors ("model.<name>").
void load_checkpoint_weights(models::GPT& gpt, const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  nn::NamedTensors state;
  for (auto& [name, t] : file.tensors)
    if (name.starts_with("model.")) state.emplace_back(name.substr(6), t);
  gpt.load_state_dict(state);
}

LanguageModel load_saved(const std::string& dir) {
  constexpr std::string_view fn = "load_language_model";
  const Json config = read_json_file(dir + "/config.json", fn);
  check(config.value("format", "") == kFormat, fn, "'{}/config.json' is not a saved language model (format \"{}\")",
        dir, config.value("format", ""));
  LanguageModel lm;
  lm.tokenizer = data::load_tokenizer(dir + "/tokenizer.json");
  models::GPTConfig g = gpt_config_from_json(config.at("gpt"));
  check(g.vocab_size == lm.tokenizer->vocab_size(), fn,
        "'{}': the model's vocab_size {} differs from the tokenizer's {} ids", dir, g.vocab_size,
        lm.tokenizer->vocab_size());
  lm.generator = std::make_shared<Generator>(0);
  lm.gpt = std::make_shared<models::GPT>(g, lm.generator.get());
  lm.gpt->load(dir + "/model.safetensors");
  lm.task_config = config.value("task", Json());
  lm.source = dir + "/model.safetensors";
  return lm;
}

LanguageModel load_trainer_checkpoint(const std::string& path) {
  constexpr std::string_view fn = "load_language_model";
  optim::CheckpointInfo info = optim::read_checkpoint_info(path);
  const std::string task = train::checkpoint_task(info);
  check(task == kKjvLmTask, fn, "'{}' is a checkpoint of task '{}', not of a language model ('{}')", path, task,
        kKjvLmTask);
  LanguageModel lm;
  const fs::path beside = fs::path(path).parent_path() / "tokenizer.json";
  if (fs::exists(beside))
    lm.tokenizer = data::load_tokenizer(beside.string());
  else
    lm.tokenizer = data::load_kjv_corpus(kjv_lm_corpus_options(info.config)).tokenizer;
  lm.generator = std::make_shared<Generator>(0);
  lm.gpt =
      std::make_shared<models::GPT>(kjv_lm_gpt_config(info.config, lm.tokenizer->vocab_size()), lm.generator.get());
  load_checkpoint_weights(*lm.gpt, path);
  lm.task_config = info.config;
  lm.source = path;
  lm.step = info.step;
  return lm;
}

}  // namespace

Json gpt_config_to_json(const models::GPTConfig& c) {
  Json j = {{"vocab_size", c.vocab_size},
            {"block_size", c.block_size},
            {"n_layer", c.n_layer},
            {"n_head", c.n_head},
            {"n_embd", c.n_embd},
            {"n_inner", c.n_inner},
            {"dropout", c.dropout},
            {"learned_positions", c.learned_positions},
            {"tie_weights", c.tie_weights},
            {"bias", c.bias},
            {"attention", kernel_name(c.attention)}};
  j.update(fourier_kernel_json(c.fourier));
  return j;
}

models::GPTConfig gpt_config_from_json(const Json& j) {
  constexpr std::string_view fn = "gpt_config_from_json";
  check(j.is_object(), fn, "expected a JSON object, got {}", j.dump());
  const Json known = gpt_config_to_json({});
  for (const auto& [k, v] : j.items())
    check(known.contains(k), fn, "unknown GPT config key \"{}\" (known: {})", k, known.dump());
  models::GPTConfig c;
  try {
    c.vocab_size = j.value("vocab_size", c.vocab_size);
    c.block_size = j.value("block_size", c.block_size);
    c.n_layer = j.value("n_layer", c.n_layer);
    c.n_head = j.value("n_head", c.n_head);
    c.n_embd = j.value("n_embd", c.n_embd);
    c.n_inner = j.value("n_inner", c.n_inner);
    c.dropout = j.value("dropout", c.dropout);
    c.learned_positions = j.value("learned_positions", c.learned_positions);
    c.tie_weights = j.value("tie_weights", c.tie_weights);
    c.bias = j.value("bias", c.bias);
    const std::string attention = j.value("attention", std::string(kernel_name(c.attention)));
    check(attention == "softmax" || attention == "fourier", fn,
          "attention must be \"softmax\" or \"fourier\", got \"{}\"", attention);
    c.attention = attention == "fourier" ? nn::AttentionKernel::Fourier : nn::AttentionKernel::DotProduct;
    c.fourier = fourier_kernel_from_json(j, c.fourier);
  } catch (const Json::exception& e) {
    throw_error(fn, fmt::format("bad value in {}: {}", j.dump(), e.what()));
  }
  return c;
}

bool is_saved_language_model(const std::string& dir) {
  return fs::is_directory(dir) && fs::exists(fs::path(dir) / "model.safetensors") &&
         fs::exists(fs::path(dir) / "config.json");
}

void save_language_model(const std::string& dir, const models::GPT& gpt, const data::Tokenizer& tokenizer,
                         const Json& task_config) {
  constexpr std::string_view fn = "save_language_model";
  check(!dir.empty(), fn, "empty directory name");
  check(gpt.config.vocab_size == tokenizer.vocab_size(), fn, "the GPT's vocab_size {} differs from the tokenizer's {}",
        gpt.config.vocab_size, tokenizer.vocab_size());
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();  // "dir/"
  if (fs::exists(target)) {
    check(fs::is_directory(target), fn, "'{}' exists and is not a directory", target.string());
    for (const auto& entry : fs::directory_iterator(target)) {
      const std::string name = entry.path().filename().string();
      check(std::find(std::begin(kFiles), std::end(kFiles), name) != std::end(kFiles), fn,
            "'{}' holds '{}', which is not part of a saved language model: refusing to replace it", target.string(),
            name);
    }
  }
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path());
  const std::string pid = std::to_string(::getpid());
  const fs::path tmp = target.string() + ".tmp." + pid, old = target.string() + ".old." + pid;
  fs::remove_all(tmp);
  fs::create_directory(tmp);
  try {
    gpt.save((tmp / "model.safetensors").string());
    const Json config = {
        {"format", kFormat}, {"version", 1}, {"gpt", gpt_config_to_json(gpt.config)}, {"task", task_config}};
    write_file_atomic((tmp / "config.json").string(), config.dump(2) + "\n");
    tokenizer.save((tmp / "tokenizer.json").string());
    const bool replace = fs::exists(target);
    if (replace) fs::rename(target, old);
    fs::rename(tmp, target);
    if (replace) fs::remove_all(old);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw_error(fn, fmt::format("writing '{}': {}", target.string(), e.what()));
  }
}

LanguageModel load_language_model(const std::string& path, Device device, const std::string& which) {
  constexpr std::string_view fn = "load_language_model";
  check(fs::exists(path), fn, "'{}' does not exist (a saved model directory, a kjv-lm run directory or checkpoint)",
        path);
  LanguageModel lm;
  if (is_saved_language_model(path)) {
    lm = load_saved(path);
  } else if (fs::is_directory(path)) {
    check(which == "last" || which == "best", fn, "which must be \"last\" or \"best\", got \"{}\"", which);
    const std::string ckpt = path + "/checkpoint_" + which + ".safetensors";
    check(fs::exists(ckpt), fn,
          "'{}' is neither a saved language model (model.safetensors + config.json) nor a run directory with {}", path,
          fs::path(ckpt).filename().string());
    lm = load_trainer_checkpoint(ckpt);
  } else {
    lm = load_trainer_checkpoint(path);
  }
  lm.gpt->to(device);
  lm.gpt->eval();
  return lm;
}

}  // namespace hm::train
