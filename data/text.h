// Text corpora for language models: reading, character and word tokenizers with a saved
// vocabulary (JSON), and the (context, next-token) block dataset.
//
//   std::string text = data::read_text(path);
//   auto tok = data::CharTokenizer::fit(text);
//   Tensor ids = tok.encode_tensor(text);                         // (N,) int64
//   auto ds = data::make_lm_dataset(ids, /*block_size=*/128);    // input (T,), target (T,)
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harmonic/core/tensor.h"
#include "harmonic/data/dataset.h"

namespace hm::data {

// A whole text file. A missing or empty file is an error naming it.
std::string read_text(const std::string& path);

// A vocabulary and the mapping text <-> ids. Id 0 is always "<unk>", the id of anything
// not in the vocabulary.
class Tokenizer {
 public:
  static constexpr const char* kUnk = "<unk>";
  virtual ~Tokenizer() = default;
  virtual std::vector<int64_t> encode(std::string_view text) const = 0;
  virtual std::string decode(const std::vector<int64_t>& ids) const = 0;
  virtual std::string kind() const = 0;  // "char" or "word" (the JSON "type")

  Tensor encode_tensor(std::string_view text) const;   // (N,) int64
  std::string decode_tensor(const Tensor& ids) const;  // any shape, read in row-major order
  int64_t vocab_size() const { return static_cast<int64_t>(tokens_.size()); }
  int64_t unk_id() const { return 0; }
  const std::vector<std::string>& vocab() const { return tokens_; }
  const std::string& token(int64_t id) const;  // throws on an out-of-range id
  int64_t id(const std::string& token) const;  // unk_id() when absent

  // {"type": kind(), "tokens": [...], ...options}, written atomically.
  void save(const std::string& path) const;

 protected:
  // Checks tokens[0] == "<unk>" and no duplicates, and builds the id map.
  void set_vocab(std::vector<std::string> tokens, std::string_view fn);
  virtual void write_options(nlohmann::json& j) const {}

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> ids_;
};

// Reads a vocabulary saved by Tokenizer::save, of either kind.
std::shared_ptr<Tokenizer> load_tokenizer(const std::string& path);

// One token per UTF-8 code point (invalid bytes count as single tokens). The vocabulary is
// <unk> followed by the corpus's distinct characters in sorted (code point) order.
class CharTokenizer : public Tokenizer {
 public:
  static CharTokenizer fit(std::string_view corpus);
  explicit CharTokenizer(std::vector<std::string> tokens);  // a saved vocabulary
  std::vector<int64_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string kind() const override { return "char"; }

 private:
  int64_t ascii_[128];  // id of each one-byte character (the fast path)
};

struct WordTokenizerOptions {
  int64_t min_freq = 1;    // drop words seen fewer times (they become <unk>)
  int64_t max_vocab = 0;   // keep the most frequent, <unk> included; 0 = no limit
  bool lowercase = false;  // ASCII lowercasing before counting and encoding
};

// Words split on whitespace, each ASCII punctuation character its own token. The vocabulary
// is <unk> then words by decreasing frequency (ties by string). decode() joins with spaces,
// except before closing punctuation and after opening brackets.
class WordTokenizer : public Tokenizer {
 public:
  static WordTokenizer fit(std::string_view corpus, WordTokenizerOptions options = {});
  WordTokenizer(std::vector<std::string> tokens, bool lowercase);  // a saved vocabulary
  std::vector<int64_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int64_t>& ids) const override;
  std::string kind() const override { return "word"; }
  bool lowercase() const { return lowercase_; }
  // The pre-tokenizer: the word and punctuation strings of `text`.
  static std::vector<std::string> split(std::string_view text, bool lowercase);

 private:
  void write_options(nlohmann::json& j) const override;
  bool lowercase_;
};

// Next-token blocks over a token stream (N,) int64: example i has input
// tokens[s : s + T] and target tokens[s + 1 : s + T + 1], s = i * stride
// (stride 0 means T, non-overlapping blocks).
std::shared_ptr<WindowDataset> make_lm_dataset(const Tensor& tokens, int64_t block_size, int64_t stride = 0);

}  // namespace hm::data
