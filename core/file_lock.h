// An exclusive advisory lock (flock) on a file: held while the object lives, released by its
// destructor or by the process's death (a killed holder never leaves a stale lock).
//
//   FileLock lock(dir + "/base_model.lock", "study rng-lm");             // waits for the holder
//   FileLock mine(dir + "/study.lock", "study", FileLock::kFailIfHeld);  // or raises at once
#pragma once
#include <string>
#include <string_view>

namespace hm {

class FileLock {
 public:
  static constexpr bool kFailIfHeld = true;
  // Creates the file when missing. Errors name `fn` and the path; with fail_if_held, a lock
  // another process (or another FileLock of this one) holds raises instead of waiting.
  FileLock(const std::string& path, std::string_view fn, bool fail_if_held = false);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace hm
