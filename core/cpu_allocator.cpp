#include "core/cpu_allocator.h"

#include <array>
#include <bit>
#include <cstdlib>
#include <vector>

#include "core/error.h"

namespace hm {
namespace {

// Every block carries a 64-byte header (keeping the payload 64-byte aligned) that records its
// size class, so a free needs no size. Classes are powers of two from 64 B to 1 MiB; larger
// blocks go straight back to the system.
constexpr size_t kHeader = 64;
constexpr int kMinShift = 6, kMaxShift = 20;
constexpr int kClasses = kMaxShift - kMinShift + 1;
constexpr int kUncached = -1;
constexpr size_t kMaxBlocksPerClass = 64;
constexpr int64_t kMaxCachedBytes = int64_t{64} << 20;  // per thread

int size_class(size_t nbytes) {
  if (nbytes > (size_t{1} << kMaxShift)) return kUncached;
  const int shift = std::max(kMinShift, static_cast<int>(std::bit_width(std::max<size_t>(nbytes, 1) - 1)));
  return shift - kMinShift;
}

size_t class_bytes(int cls) { return size_t{1} << (cls + kMinShift); }

struct ThreadCache {
  std::array<std::vector<void*>, kClasses> free_blocks;  // raw block pointers (header included)
  int64_t bytes = 0;
  void clear() {
    for (auto& list : free_blocks) {
      for (void* raw : list) std::free(raw);
      list.clear();
    }
    bytes = 0;
  }
};

// Trivially destructible thread-locals, so storage freed during exit (static tensors outlive
// the thread-local cache) sees "no cache" instead of a destroyed object.
thread_local ThreadCache* t_cache = nullptr;
thread_local bool t_cache_gone = false;
thread_local int64_t t_allocated_bytes = 0;

struct CacheOwner {
  ~CacheOwner() {
    if (t_cache) t_cache->clear();
    delete t_cache;
    t_cache = nullptr;
    t_cache_gone = true;
  }
};

ThreadCache* cache() {  // nullptr once the thread is exiting
  if (!t_cache && !t_cache_gone) {
    thread_local CacheOwner owner;
    t_cache = new ThreadCache;
  }
  return t_cache;
}

int& header_class(void* raw) { return *static_cast<int*>(raw); }

}  // namespace

void* cpu_allocate(size_t nbytes) {
  t_allocated_bytes += static_cast<int64_t>(nbytes);
  const int cls = size_class(nbytes);
  void* raw = nullptr;
  ThreadCache* c = cls == kUncached ? nullptr : cache();
  if (c && !c->free_blocks[cls].empty()) {
    raw = c->free_blocks[cls].back();
    c->free_blocks[cls].pop_back();
    c->bytes -= static_cast<int64_t>(class_bytes(cls));
  }
  if (!raw) {
    const size_t payload = cls == kUncached ? (nbytes + 63) / 64 * 64 : class_bytes(cls);
    raw = std::aligned_alloc(64, kHeader + payload);
    if (!raw) throw_error("alloc", fmt::format("out of host memory allocating {} bytes", nbytes));
    header_class(raw) = cls;
  }
  return static_cast<char*>(raw) + kHeader;
}

void cpu_deallocate(void* p) {
  if (!p) return;
  void* raw = static_cast<char*>(p) - kHeader;
  const int cls = header_class(raw);
  ThreadCache* c = cls == kUncached ? nullptr : cache();
  if (!c || c->free_blocks[cls].size() >= kMaxBlocksPerClass ||
      c->bytes + static_cast<int64_t>(class_bytes(cls)) > kMaxCachedBytes) {
    std::free(raw);
    return;
  }
  c->free_blocks[cls].push_back(raw);
  c->bytes += static_cast<int64_t>(class_bytes(cls));
}

CpuCacheStats cpu_cache_stats() {
  CpuCacheStats s;
  if (ThreadCache* c = cache()) {
    for (const auto& list : c->free_blocks) s.cached_blocks += static_cast<int64_t>(list.size());
    s.cached_bytes = c->bytes;
  }
  return s;
}

int64_t cpu_allocated_bytes() { return t_allocated_bytes; }

void cpu_cache_clear() {
  if (ThreadCache* c = cache()) c->clear();
}

}  // namespace hm
