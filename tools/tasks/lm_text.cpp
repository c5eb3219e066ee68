#include "harmonic/tools/tasks/lm_text.h"

#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

EncodedText encode_text(const data::Tokenizer& tokenizer, std::string_view text) {
  EncodedText out;
  std::vector<int64_t> ids = tokenizer.encode(text);
  out.unk = std::count(ids.begin(), ids.end(), tokenizer.unk_id());
  if (const auto* word = dynamic_cast<const data::WordTokenizer*>(&tokenizer); word && out.unk > 0)
    for (const std::string& w : data::WordTokenizer::split(text, word->lowercase()))
      if (tokenizer.id(w) == tokenizer.unk_id() &&
          std::find(out.unknown.begin(), out.unknown.end(), w) == out.unknown.end())
        out.unknown.push_back(w);
  const int64_t n = static_cast<int64_t>(ids.size());
  out.ids = from_vector(ids, {n});
  return out;
}

std::string generate_text(LanguageModel& lm, const EncodedText& prompt, const GenerateOptions& o) {
  check(prompt.ids.defined() && prompt.ids.numel() > 0, "generate_text", "the prompt has no token");
  check(o.tokens >= 0, "generate_text", "tokens must be >= 0, got {}", o.tokens);
  Generator gen(o.seed);
  lm.gpt->eval();
  const Device device = lm.gpt->wte->weight.device();
  Tensor ids = reshape(prompt.ids, {1, prompt.ids.numel()}).to(device);         // (1, T0)
  Tensor out = lm.gpt->generate(ids, o.tokens, o.sampling, &gen, o.use_cache);  // (1, T0 + tokens)
  return lm.tokenizer->decode_tensor(out.to(Device::cpu()));
}

TextScore score_text(LanguageModel& lm, std::string_view text, int64_t max_tokens, int64_t batch_size) {
  EncodedText enc = encode_text(*lm.tokenizer, text);
  check(enc.ids.numel() >= 2, "score_text", "the text has {} token(s); scoring needs at least 2", enc.ids.numel());
  lm.gpt->eval();
  TextScore s;
  s.tokens = enc.ids.numel();
  s.unk = enc.unk;
  s.score = score_token_stream(*lm.gpt, enc.ids, max_tokens, batch_size);
  return s;
}

}  // namespace hm::train
