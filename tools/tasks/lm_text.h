// Text in and out of a loaded language model (tools/tasks/language_model.h): prompts encoded
// with their unknown words reported, generation through GPT::generate (KV cache), and the
// perplexity of a whole text (`harmonic sample`, `harmonic eval --text`).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harmonic/models/sampling.h"
#include "harmonic/tools/tasks/language_model.h"
#include "harmonic/tools/tasks/lm_eval.h"

namespace hm::train {

struct EncodedText {
  Tensor ids;                        // (N,) int64
  int64_t unk = 0;                   // ids that are <unk>
  std::vector<std::string> unknown;  // the distinct words that became <unk>, in order of appearance (word tokenizers)
};
EncodedText encode_text(const data::Tokenizer& tokenizer, std::string_view text);

struct GenerateOptions {
  int64_t tokens = 100;  // new tokens
  models::SamplingOptions sampling;
  uint64_t seed = 0;
  bool use_cache = true;
};
// The prompt's ids followed by `tokens` generated ones, decoded. The prompt must have a token.
std::string generate_text(LanguageModel& lm, const EncodedText& prompt, const GenerateOptions& options);

struct TextScore {
  int64_t tokens = 0, unk = 0;  // the text's tokens and how many are <unk>
  StreamScore score;            // over lm_eval_windows (the kjv-lm task's windowing)
  double unk_rate() const { return tokens ? static_cast<double>(unk) / static_cast<double>(tokens) : 0.0; }
};
// Perplexity of the model on text, tokenised with its tokenizer; max_tokens as score_token_stream.
TextScore score_text(LanguageModel& lm, std::string_view text, int64_t max_tokens = 0, int64_t batch_size = 16);

}  // namespace hm::train
