// Crash-safe file replacement: the bytes go to "<path>.tmp.<pid>" in the same directory,
// are fsync'ed, and the temporary is renamed over path (atomic on POSIX), so a reader sees
// either the old file or the complete new one, never a torn write. Checkpoints and tensor
// files use it. append_line_durable grows a log one durable line at a time. The readers'
// guards are in core/file_read.h.
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

// Appends line + "\n" to path (created if missing) in one write and fsyncs it before
// returning: a log of finished work (a study's results.jsonl) that a crash cannot lose. A
// process killed during the write can leave a torn last line; readers skip a line that does
// not parse.
void append_line_durable(const std::string& path, std::string_view line);

// The same without the fsync (a progress log such as metrics.jsonl): one write() of the whole
// line, so a full disk or an I/O error throws naming the path and the errno text instead of
// being lost in a stream buffer that is flushed after the check.
void append_line(const std::string& path, std::string_view line);

// Creates dir (and its parents) for a command's output: an existing file there, or a parent
// that cannot be created (read-only, not a directory), throws an hm::Error prefixed with fn
// naming the path and the reason instead of std::filesystem's "cannot create directories".
void create_output_directory(const std::string& dir, std::string_view fn);

// Throws an hm::Error prefixed with fn when path, an output file, is an existing directory.
void check_output_file(const std::string& path, std::string_view fn);

// Removes the temporaries "<name>.tmp.<pid>" in dir that write_file_atomic left when its
// process was killed between creating and renaming them: only those whose pid is no live
// process (a running writer's temporary stays). Returns the names removed.
std::vector<std::string> remove_orphaned_temporaries(const std::string& dir);

}  // namespace hm
