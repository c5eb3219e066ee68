// The readers' guards: checks before opening a file named by a user, and a line reader with
// a bound, so a directory, a missing path, /dev/zero or a binary file given where text is
// expected gives an error naming it instead of a stream's "basic_filebuf::underflow" or a
// string that grows until memory runs out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace hm {

// Throws an hm::Error prefixed with fn when path is a directory ("'p': is a directory, not a
// file") or does not exist ("'p': cannot open: no such file").
void check_readable_file(const std::string& path, std::string_view fn);

// std::getline with a bound: reads the next line (without its '\n') into line and returns
// true, or returns false at the end of the stream. A line longer than max_bytes throws an
// hm::Error naming fn, path and the 1-based line number.
bool read_line_limited(std::istream& in, std::string& line, size_t max_bytes, std::string_view fn,
                       const std::string& path, int64_t lineno);

}  // namespace hm
