#include "harmonic/core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harmonic/core/error.h"

namespace hm {

FileLock::FileLock(const std::string& path, std::string_view fn, bool fail_if_held)
    : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
  check(fd_ >= 0, fn, "cannot open the lock file '{}': {}", path, std::strerror(errno));
  int rc;
  do rc = ::flock(fd_, LOCK_EX | (fail_if_held ? LOCK_NB : 0));
  while (rc != 0 && errno == EINTR);
  if (rc == 0) return;
  const int err = errno;
  ::close(fd_);
  check(err != EWOULDBLOCK, fn, "'{}' is locked by another process", path);
  throw_error(fn, fmt::format("cannot lock '{}': {}", path, std::strerror(err)));
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace hm
