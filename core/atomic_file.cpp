#include "harmonic/core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harmonic/core/error.h"

namespace hm {
namespace {

[[noreturn]] void fail(const std::string& path, std::string_view step, int err, const char* fn = "write_file_atomic") {
  throw_error(fn, fmt::format("'{}': {} failed: {}", path, step, std::strerror(err)));
}

void write_all(int fd, std::string_view bytes, const std::string& path, const char* fn = "write_file_atomic") {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno, fn);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Makes the rename itself durable (best effort: some filesystems refuse fsync on a directory).
void sync_directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void create_output_directory(const std::string& dir, std::string_view fn) {
  namespace fs = std::filesystem;
  std::error_code ec;
  HM_CHECK(!fs::exists(dir, ec) || fs::is_directory(dir, ec), fn,
           "'{}' is a file, not a directory (an output directory)", dir);
  fs::create_directories(dir, ec);
  HM_CHECK(!ec, fn, "cannot create the output directory '{}': {}", dir, ec.message());
}

void check_output_file(const std::string& path, std::string_view fn) {
  std::error_code ec;
  HM_CHECK(!std::filesystem::is_directory(path, ec), fn, "'{}' is a directory; an output file is expected", path);
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  write_file_atomic(path, std::vector<std::string_view>{bytes});
}

void write_file_atomic(const std::string& path, const std::vector<std::string_view>& pieces) {
  check(!path.empty(), "write_file_atomic", "empty path");
  // pid and a per-process sequence number: two threads writing the same path at once (two runs
  // of a study generating one cached data set) must not share, and then lose, one temporary.
  static std::atomic<uint64_t> sequence{0};
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), sequence.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    // Name what the user gave, not the temporary beside it.
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    HM_CHECK(err != ENOENT || dir.empty() || std::filesystem::is_directory(dir, ec), "write_file_atomic",
             "cannot write '{}': its folder '{}' does not exist (create it first)", path, dir.string());
    fail(tmp, "open", err);
  }
  try {
    for (std::string_view piece : pieces) write_all(fd, piece, tmp);
    if (::fsync(fd) != 0) fail(tmp, "fsync", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(tmp, "close", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename", err);
  }
  sync_directory(path);
}

namespace {

void append_line_impl(const std::string& path, std::string_view line, bool durable, const char* fn) {
  check(line.find('\n') == std::string_view::npos, fn, "'{}': the line contains a newline", path);
  const bool existed = std::filesystem::exists(path);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "open", errno, fn);
  std::string bytes(line);
  bytes += '\n';
  try {
    write_all(fd, bytes, path, fn);
    if (durable && ::fsync(fd) != 0) fail(path, "fsync", errno, fn);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, "close", errno, fn);
  if (durable && !existed) sync_directory(path);  // the new file's directory entry
}

}  // namespace

void append_line_durable(const std::string& path, std::string_view line) {
  append_line_impl(path, line, true, "append_line_durable");
}

void append_line(const std::string& path, std::string_view line) { append_line_impl(path, line, false, "append_line"); }

std::vector<std::string> remove_orphaned_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos || at == 0 || at + 5 == name.size()) continue;
    // "<pid>.<sequence>" (or "<pid>" from older versions): both parts all digits.
    const std::string suffix = name.substr(at + 5);
    const std::string digits = suffix.substr(0, suffix.find('.'));
    const std::string sequence = suffix.size() > digits.size() ? suffix.substr(digits.size() + 1) : "0";
    auto all_digits = [](const std::string& x) {
      return !x.empty() && x.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!all_digits(digits) || digits.size() > 9 || !all_digits(sequence) || sequence.size() > 19) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    // kill(pid, 0): 0 or EPERM = a live process (or a reused pid: keep the file), ESRCH = gone.
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (fs::remove(entry.path(), ec)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

}  // namespace hm
