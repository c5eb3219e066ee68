#include "harmonic/data/text.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "harmonic/core/atomic_file.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/file_read.h"
#include "harmonic/core/json_read.h"

namespace hm::data {
namespace {

// Byte length of the UTF-8 character starting at s[i]; 1 for an invalid or cut sequence.
size_t utf8_length(std::string_view s, size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  size_t n = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}

bool is_space(char ch) { return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }
bool is_punct(char ch) { return static_cast<unsigned char>(ch) < 0x80 && std::ispunct(static_cast<unsigned char>(ch)); }
bool attaches_left(const std::string& t) {  // no space before it
  return t.size() == 1 && std::string_view(".,;:!?)]}'").find(t[0]) != std::string_view::npos;
}
bool attaches_right(const std::string& t) {  // no space after it
  return t.size() == 1 && std::string_view("([{'").find(t[0]) != std::string_view::npos;
}

std::string slurp(const std::string& path, std::string_view fn) {
  check_readable_file(path, fn);  // a directory or a missing path, by name
  std::ifstream in(path, std::ios::binary);
  check(in.good(), fn, "cannot open '{}'", path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

std::string read_text(const std::string& path) {
  std::string text = slurp(path, "read_text");
  check(!text.empty(), "read_text", "'{}': empty corpus (0 bytes)", path);
  return text;
}

// -- Tokenizer ----------------------------------------------------------------------------

void Tokenizer::set_vocab(std::vector<std::string> tokens, std::string_view fn) {
  check(!tokens.empty() && tokens[0] == kUnk, fn, "the vocabulary must start with \"{}\" (id 0)", kUnk);
  ids_.clear();
  for (size_t i = 0; i < tokens.size(); ++i) {
    bool fresh = ids_.emplace(tokens[i], static_cast<int64_t>(i)).second;
    check(fresh, fn, "token \"{}\" appears twice in the vocabulary (ids {} and {})", tokens[i], ids_[tokens[i]], i);
  }
  tokens_ = std::move(tokens);
}

const std::string& Tokenizer::token(int64_t id) const {
  check(id >= 0 && id < vocab_size(), "Tokenizer::token", "id {} out of range for a vocabulary of {}", id,
        vocab_size());
  return tokens_[id];
}

int64_t Tokenizer::id(const std::string& token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? unk_id() : it->second;
}

Tensor Tokenizer::encode_tensor(std::string_view text) const {
  std::vector<int64_t> ids = encode(text);
  return from_vector(ids, {static_cast<int64_t>(ids.size())});
}

std::string Tokenizer::decode_tensor(const Tensor& ids) const {
  HM_CHECK(ids.dtype() == DType::Int64, "Tokenizer::decode_tensor", "ids must be int64, got {}", ids.desc());
  return decode(ids.to_vector_as<int64_t>());
}

void Tokenizer::save(const std::string& path) const {
  nlohmann::json j;
  j["type"] = kind();
  j["tokens"] = tokens_;
  write_options(j);
  write_file_atomic(path, j.dump(1) + "\n");
}

std::shared_ptr<Tokenizer> load_tokenizer(const std::string& path) {
  constexpr std::string_view fn = "load_tokenizer";
  std::string text = slurp(path, fn);
  nlohmann::json j;
  try {
    j = parse_json(text, fn, fmt::format("'{}'", path));
    std::string type = j.at("type").get<std::string>();
    auto tokens = j.at("tokens").get<std::vector<std::string>>();
    if (type == "char") return std::make_shared<CharTokenizer>(std::move(tokens));
    if (type == "word") return std::make_shared<WordTokenizer>(std::move(tokens), j.value("lowercase", false));
    throw_error(fn, fmt::format("'{}': unknown tokenizer type \"{}\" (expected char or word)", path, type));
  } catch (const nlohmann::json::exception& e) {
    throw_error(fn, fmt::format("'{}': not a tokenizer vocabulary: {}", path, e.what()));
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(path) != std::string_view::npos) throw;
    throw_error(fn, fmt::format("'{}': {}", path, e.what()));
  }
}

// -- CharTokenizer ------------------------------------------------------------------------

CharTokenizer::CharTokenizer(std::vector<std::string> tokens) {
  set_vocab(std::move(tokens), "CharTokenizer");
  for (int c = 0; c < 128; ++c) ascii_[c] = id(std::string(1, static_cast<char>(c)));
}

CharTokenizer CharTokenizer::fit(std::string_view corpus) {
  check(!corpus.empty(), "CharTokenizer::fit", "empty corpus: no characters to build a vocabulary from");
  bool seen[128] = {};
  std::set<std::string> chars;  // std::string order = byte order = code point order for UTF-8
  for (size_t i = 0; i < corpus.size();) {
    size_t n = utf8_length(corpus, i);
    auto lead = static_cast<unsigned char>(corpus[i]);
    if (n == 1 && lead < 0x80)
      seen[lead] = true;
    else
      chars.emplace(corpus.substr(i, n));
    i += n;
  }
  for (int c = 0; c < 128; ++c)
    if (seen[c]) chars.emplace(1, static_cast<char>(c));
  std::vector<std::string> tokens{kUnk};
  tokens.insert(tokens.end(), chars.begin(), chars.end());
  return CharTokenizer(std::move(tokens));
}

std::vector<int64_t> CharTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      out.push_back(ascii_[lead]);
      ++i;
      continue;
    }
    size_t n = utf8_length(text, i);
    out.push_back(id(std::string(text.substr(i, n))));
    i += n;
  }
  return out;
}

std::string CharTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  out.reserve(ids.size());
  for (int64_t i : ids) out += token(i);
  return out;
}

// -- WordTokenizer ------------------------------------------------------------------------

WordTokenizer::WordTokenizer(std::vector<std::string> tokens, bool lowercase) : lowercase_(lowercase) {
  set_vocab(std::move(tokens), "WordTokenizer");
}

std::vector<std::string> WordTokenizer::split(std::string_view text, bool lowercase) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char ch : text) {
    if (is_space(ch)) {
      flush();
    } else if (is_punct(ch)) {
      flush();
      words.emplace_back(1, ch);
    } else {
      word += lowercase && ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
  }
  flush();
  return words;
}

WordTokenizer WordTokenizer::fit(std::string_view corpus, WordTokenizerOptions opt) {
  constexpr std::string_view fn = "WordTokenizer::fit";
  check(opt.min_freq >= 1 && opt.max_vocab >= 0, fn, "need min_freq >= 1 and max_vocab >= 0, got {} and {}",
        opt.min_freq, opt.max_vocab);
  std::vector<std::string> words = split(corpus, opt.lowercase);
  check(!words.empty(), fn, "empty corpus: no words to build a vocabulary from ({} bytes of whitespace)",
        corpus.size());
  std::unordered_map<std::string, int64_t> counts;
  for (auto& w : words) ++counts[w];
  std::vector<std::pair<std::string, int64_t>> ranked;
  for (auto& [w, c] : counts)
    if (c >= opt.min_freq && w != kUnk) ranked.emplace_back(w, c);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (opt.max_vocab > 0 && static_cast<int64_t>(ranked.size()) > opt.max_vocab - 1)
    ranked.resize(static_cast<size_t>(std::max<int64_t>(opt.max_vocab - 1, 0)));
  std::vector<std::string> tokens{kUnk};
  for (auto& [w, c] : ranked) tokens.push_back(w);
  return WordTokenizer(std::move(tokens), opt.lowercase);
}

std::vector<int64_t> WordTokenizer::encode(std::string_view text) const {
  std::vector<std::string> words = split(text, lowercase_);
  std::vector<int64_t> out;
  out.reserve(words.size());
  for (const auto& w : words) out.push_back(id(w));
  return out;
}

std::string WordTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string out;
  bool glue_next = true;  // no space before the first token
  for (int64_t i : ids) {
    const std::string& t = token(i);
    if (!glue_next && !attaches_left(t)) out += ' ';
    out += t;
    glue_next = attaches_right(t);
  }
  return out;
}

void WordTokenizer::write_options(nlohmann::json& j) const { j["lowercase"] = lowercase_; }

// -- language-model blocks ----------------------------------------------------------------

std::shared_ptr<WindowDataset> make_lm_dataset(const Tensor& tokens, int64_t block_size, int64_t stride) {
  HM_CHECK(tokens.defined() && tokens.dim() == 1 && tokens.dtype() == DType::Int64, "make_lm_dataset",
           "tokens must be a 1-d int64 tensor, got {}", tokens.desc());
  check(block_size >= 1 && stride >= 0, "make_lm_dataset", "need block_size >= 1 and stride >= 0, got {} and {}",
        block_size, stride);
  check(tokens.numel() >= block_size + 1, "make_lm_dataset",
        "a stream of {} tokens is too short for one block of {} (needs block_size + 1 = {})", tokens.numel(),
        block_size, block_size + 1);
  return std::make_shared<WindowDataset>(tokens, block_size, block_size, 1, stride ? stride : block_size);
}

}  // namespace hm::data
