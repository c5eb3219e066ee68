#include "harmonic/core/file_read.h"

#include <filesystem>

#include "harmonic/core/error.h"

namespace hm {

void check_readable_file(const std::string& path, std::string_view fn) {
  std::error_code ec;
  check(!std::filesystem::is_directory(path, ec), fn, "'{}': is a directory, not a file", path);
  check(std::filesystem::exists(path, ec), fn, "'{}': cannot open: no such file", path);
}

bool read_line_limited(std::istream& in, std::string& line, size_t max_bytes, std::string_view fn,
                       const std::string& path, int64_t lineno) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  if (!buf) return false;
  for (;;) {
    const auto c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    check(line.size() < max_bytes, fn, "'{}' line {}: longer than {} bytes (not a text file of lines?)", path, lineno,
          max_bytes);
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace hm
