#include "harmonic/core/cpu_allocator.h"

#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "harmonic/core/error.h"

namespace hm {
namespace {

// Every block carries a 64-byte header (keeping the payload 64-byte aligned) that records its
// size class (and, for uncached classes, its payload bytes), so a free needs no size. Classes
// are powers of two from 64 B to 1 MiB; larger blocks go back to the system, but for big ones
// (see BigCache).
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
size_t& header_payload(void* raw) { return *reinterpret_cast<size_t*>(static_cast<char*>(raw) + 8); }

// Freed blocks of at least kBigBytes, process-wide, reused best fit (at most 1/8 larger than
// asked). A training step allocates the same big activations every time (an LSTM over 784
// steps saves ~2 GB), and a fresh block costs a page fault and a zeroed page per 4 KiB on first
// touch: measured 35-40% of an LSTM layer's forward+backward. Blocks below kBigBytes are left
// to glibc, which reuses them without faults (its mmap threshold adapts up to 32 MiB).
constexpr size_t kBigBytes = size_t{8} << 20;
struct BigCache {
  std::mutex mutex;
  std::multimap<size_t, void*> blocks;  // payload bytes -> raw block
  int64_t bytes = 0;
  int64_t limit = 0;  // min(4 GiB, a quarter of physical memory)
};

BigCache& big_cache() {
  static BigCache* c = [] {
    auto* cache = new BigCache;  // never destroyed: tensors may be freed during exit
    const int64_t physical = int64_t{sysconf(_SC_PHYS_PAGES)} * sysconf(_SC_PAGESIZE);
    cache->limit = std::min<int64_t>(int64_t{4} << 30, std::max<int64_t>(physical, 0) / 4);
    return cache;
  }();
  return *c;
}

void* take_big(size_t payload) {
  BigCache& c = big_cache();
  std::lock_guard lock(c.mutex);
  auto it = c.blocks.lower_bound(payload);
  if (it == c.blocks.end() || it->first > payload + payload / 8) return nullptr;
  void* raw = it->second;
  c.bytes -= static_cast<int64_t>(it->first);
  c.blocks.erase(it);
  return raw;
}

// False when the block is too big to keep; else it is cached, evicting the biggest blocks first
// when over the limit.
bool keep_big(void* raw, size_t payload) {
  BigCache& c = big_cache();
  std::lock_guard lock(c.mutex);
  if (static_cast<int64_t>(payload) > c.limit) return false;
  while (c.bytes + static_cast<int64_t>(payload) > c.limit) {
    auto last = std::prev(c.blocks.end());
    c.bytes -= static_cast<int64_t>(last->first);
    std::free(last->second);
    c.blocks.erase(last);
  }
  c.blocks.emplace(payload, raw);
  c.bytes += static_cast<int64_t>(payload);
  return true;
}

// RAM + swap: a request beyond it cannot succeed, so it fails before malloc (which under
// overcommit may "succeed" and fault later, and under AddressSanitizer aborts the process).
size_t memory_ceiling() {
  static const size_t bytes = [] {
    struct sysinfo si {};
    if (sysinfo(&si) != 0) return SIZE_MAX;
    return static_cast<size_t>(si.totalram + si.totalswap) * si.mem_unit;
  }();
  return bytes;
}

}  // namespace

void check_host_fits(int64_t count, size_t element_bytes, std::string_view fn) {
  HM_CHECK(count >= 0 && static_cast<uint64_t>(count) <= memory_ceiling() / std::max<size_t>(element_bytes, 1), fn,
           "{} elements of {} bytes do not fit in host memory (RAM + swap is {} bytes)", count, element_bytes,
           memory_ceiling());
}

void* cpu_allocate(size_t nbytes) {
  if (nbytes > memory_ceiling())
    throw_error("alloc", fmt::format("out of host memory allocating {} bytes (RAM + swap is {} bytes)", nbytes,
                                     memory_ceiling()));
  t_allocated_bytes += static_cast<int64_t>(nbytes);
  const int cls = size_class(nbytes);
  void* raw = nullptr;
  ThreadCache* c = cls == kUncached ? nullptr : cache();
  if (c && !c->free_blocks[cls].empty()) {
    raw = c->free_blocks[cls].back();
    c->free_blocks[cls].pop_back();
    c->bytes -= static_cast<int64_t>(class_bytes(cls));
  }
  const size_t payload = cls == kUncached ? (nbytes + 63) / 64 * 64 : class_bytes(cls);
  if (!raw && payload >= kBigBytes) raw = take_big(payload);
  if (!raw) {
    raw = std::aligned_alloc(64, kHeader + payload);
    if (!raw) throw_error("alloc", fmt::format("out of host memory allocating {} bytes", nbytes));
    header_class(raw) = cls;
    header_payload(raw) = payload;
  }
  return static_cast<char*>(raw) + kHeader;
}

void cpu_deallocate(void* p) {
  if (!p) return;
  void* raw = static_cast<char*>(p) - kHeader;
  const int cls = header_class(raw);
  if (cls == kUncached && header_payload(raw) >= kBigBytes && keep_big(raw, header_payload(raw))) return;
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
  BigCache& big = big_cache();
  std::lock_guard lock(big.mutex);
  s.big_blocks = static_cast<int64_t>(big.blocks.size());
  s.big_bytes = big.bytes;
  return s;
}

int64_t cpu_allocated_bytes() { return t_allocated_bytes; }

void cpu_cache_clear() {
  if (ThreadCache* c = cache()) c->clear();
  BigCache& big = big_cache();
  std::lock_guard lock(big.mutex);
  for (auto& [bytes, raw] : big.blocks) std::free(raw);
  big.blocks.clear();
  big.bytes = 0;
}

}  // namespace hm
