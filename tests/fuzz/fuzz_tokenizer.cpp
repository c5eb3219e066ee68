// Target "tokenizer": a saved vocabulary (tokenizer.json beside a saved language model or a
// kjv-lm checkpoint) loaded with load_tokenizer, then used to encode and decode.
#include "harmonic/data/text.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_tokenizer(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("tokenizer.json", as_text(data, size));
  return reject_errors([&] {
    const std::shared_ptr<data::Tokenizer> tok = data::load_tokenizer(path);
    const std::string text = "In the beginning God created the heaven and the earth. \xc3\x89t\xc3\xa9 \xff (x), \"y\"!";
    std::vector<int64_t> ids = tok->encode(text);
    for (int64_t i = 0; i < std::min<int64_t>(tok->vocab_size(), 64); ++i) ids.push_back(i);
    (void)tok->decode(ids);
  });
}

}  // namespace hm::fuzz
