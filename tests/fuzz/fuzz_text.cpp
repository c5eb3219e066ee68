// Target "text": a text corpus (`harmonic eval --text FILE`, the KJV corpora) read with
// read_text, both tokenizers fit on it, the text encoded and decoded, and next-token blocks cut.
#include "harmonic/data/text.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_text(const uint8_t* data, size_t size) {
  const std::string path = write_scratch("corpus.txt", as_text(data, size));
  return reject_errors([&] {
    const std::string text = data::read_text(path);
    const data::CharTokenizer chars = data::CharTokenizer::fit(text);
    const Tensor ids = chars.encode_tensor(text);
    check(chars.decode_tensor(ids).size() <= text.size() * 3 + 3, "fuzz_text", "char decode grew the text");
    const data::WordTokenizer words =
        data::WordTokenizer::fit(text, {.min_freq = 2, .max_vocab = 40, .lowercase = (size % 2) == 1});
    (void)words.decode(words.encode(text));
    if (ids.numel() > 3) (void)data::make_lm_dataset(ids, 2, 1)->get(0);
  });
}

}  // namespace hm::fuzz
