#include "harmonic/core/json_read.h"

#include <algorithm>

#include "harmonic/core/error.h"

namespace hm {
namespace {

// Walks text as nlohmann's lexer splits it: outside a string only '"' starts one; inside,
// '\\' escapes the next byte and '"' ends it. Calls on_open(depth, offset) at each '[' or '{'.
template <class F>
void scan_brackets(std::string_view text, F&& on_open) {
  int64_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      on_open(++depth, i);
    } else if (c == ']' || c == '}') {
      depth = std::max<int64_t>(depth - 1, 0);  // an unbalanced close is the parser's error to name
    }
  }
}

}  // namespace

int64_t json_depth(std::string_view text) {
  int64_t deepest = 0;
  scan_brackets(text, [&](int64_t depth, size_t) { deepest = std::max(deepest, depth); });
  return deepest;
}

void check_json_depth(std::string_view text, std::string_view fn, std::string_view source) {
  int64_t deepest = 0;
  size_t first_over = 0;
  scan_brackets(text, [&](int64_t depth, size_t offset) {
    if (depth == kMaxJsonDepth + 1 && deepest <= kMaxJsonDepth) first_over = offset;
    deepest = std::max(deepest, depth);
  });
  check(deepest <= kMaxJsonDepth, fn, "{}: JSON nested {} levels deep, beyond the limit of {} (level {} opens at byte {})",
        source, deepest, kMaxJsonDepth, kMaxJsonDepth + 1, first_over);
}

std::string read_json_stream(std::istream& in, std::string_view fn, std::string_view source) {
  std::string text;
  std::streambuf* buf = in.rdbuf();
  if (!buf) return text;
  char chunk[1 << 16];
  for (std::streamsize n; (n = buf->sgetn(chunk, sizeof chunk)) > 0;) {
    check(text.size() + static_cast<size_t>(n) <= kMaxJsonStreamBytes, fn,
          "{}: larger than {} bytes (not a JSON file?)", source, kMaxJsonStreamBytes);
    text.append(chunk, static_cast<size_t>(n));
  }
  in.setstate(std::ios::eofbit);
  return text;
}

}  // namespace hm
