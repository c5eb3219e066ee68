// Crash-safe file replacement: the bytes go to "<path>.tmp.<pid>" in the same directory,
// are fsync'ed, and the temporary is renamed over path (atomic on POSIX), so a reader sees
// either the old file or the complete new one, never a torn write. Checkpoints and tensor
// files use it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hm {

// Atomically replaces (or creates) path with bytes. Throws hm::Error naming the path and
// the failing step; the temporary is removed on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

// The same for data in pieces, written in order without concatenating them in memory
// (a checkpoint's header followed by each tensor's bytes).
void write_file_atomic(const std::string& path, const std::vector<std::string_view>& pieces);

}  // namespace hm
