// Caching device allocator and pinned host buffers (see cuda/runtime/allocator.h).
#include <cuda_runtime.h>

#include <bit>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "harmonic/core/storage.h"
#include "harmonic/cuda/runtime/allocator.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/runtime/context.h"
#include "harmonic/cuda/runtime/runtime.h"

namespace hm::cuda {
namespace {

using FreeLists = std::unordered_map<size_t, std::vector<void*>>;  // size class -> free blocks

// A CUDA graph's private pool (allocator.h): its free blocks and how many bytes it owns.
struct CapturePool {
  FreeLists free_blocks;
  size_t owned = 0;  // live + free
};

struct DevicePool {
  FreeLists free_blocks;                   // the cache
  std::unordered_map<void*, size_t> live;  // block -> size class
  std::unordered_map<uint64_t, CapturePool> capture_pools;
  std::unordered_map<void*, uint64_t> pool_of;  // blocks owned by a capture pool -> its id
  uint64_t capturing = 0;                       // the pool allocations go to now (0: the cache)
  AllocatorStats stats;
};

uint64_t next_capture_pool = 1;  // under the allocator's lock

// Pops a block of `size` from `lists`, or nullptr.
void* pop_block(FreeLists& lists, size_t size) {
  auto it = lists.find(size);
  if (it == lists.end() || it->second.empty()) return nullptr;
  void* block = it->second.back();
  it->second.pop_back();
  return block;
}

struct Allocator {
  std::mutex mutex;
  std::vector<DevicePool> pools;         // indexed by device
  std::map<const char*, size_t> pinned;  // base -> bytes, for is_pinned() on interior pointers
};

// Leaked on purpose: tensors destroyed during static destruction still find it, and no
// cudaFree runs after the CUDA runtime has shut down.
Allocator& allocator() {
  static Allocator* a = new Allocator;
  return *a;
}

DevicePool& pool(Allocator& a, int device) {
  if (a.pools.size() <= static_cast<size_t>(device)) a.pools.resize(device + 1);
  return a.pools[device];
}

// HARMONIC_CUDA_NO_CACHE=1 frees blocks at once (for compute-sanitizer / leak hunting).
bool caching_disabled() {
  static const bool disabled = [] {
    const char* v = std::getenv("HARMONIC_CUDA_NO_CACHE");
    return v && v[0] == '1';
  }();
  return disabled;
}

// The driver's allocation, or host memory on the emulated device (the caching above it is
// the same code either way, so its statistics mean the same).
cudaError_t raw_malloc(void** block, size_t size) {
  if (!emulated()) return cudaMalloc(block, size);
  *block = std::aligned_alloc(256, size);  // cudaMalloc's alignment; size classes are multiples of 512
  return *block ? cudaSuccess : cudaErrorMemoryAllocation;
}

void raw_free(void* block) {
  if (emulated()) return std::free(block);
  HM_CUDA_WARN(cudaFree(block));
}

std::string mib(size_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

// Returns a device's cached blocks to the driver. Caller holds the lock. cudaFree waits
// for the device, so blocks still read by queued kernels are safe to release.
void release_cached(DevicePool& p, int device) {
  if (p.stats.cached == 0) return;
  DeviceGuard guard(device);
  for (auto& [size, blocks] : p.free_blocks) {
    for (void* b : blocks) raw_free(b);
    p.stats.cached -= size * blocks.size();
    p.stats.reserved -= size * blocks.size();
  }
  p.free_blocks.clear();
}

void* device_alloc(size_t nbytes, int device) {
  check_device(device, "alloc");
  const size_t size = allocation_size_class(nbytes);
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  DevicePool& p = pool(a, device);
  void* block = nullptr;
  CapturePool* capture = p.capturing ? &p.capture_pools.at(p.capturing) : nullptr;
  if (capture && (block = pop_block(capture->free_blocks, size))) {
    p.stats.graph_pools -= size;
    ++p.stats.cache_hits;
  } else if ((block = pop_block(p.free_blocks, size))) {
    p.stats.cached -= size;
    ++p.stats.cache_hits;
  } else {
    DeviceGuard guard(device);
    cudaError_t status = raw_malloc(&block, size);
    if (status == cudaErrorMemoryAllocation) {  // give the cache back and try once more
      cudaGetLastError();
      release_cached(p, device);
      status = raw_malloc(&block, size);
    }
    if (status != cudaSuccess) {
      cudaGetLastError();
      size_t free_bytes = 0, total_bytes = 0;
      if (!emulated()) cudaMemGetInfo(&free_bytes, &total_bytes);
      cudaGetLastError();
      throw_error("alloc", fmt::format("cudaMalloc of {} on cuda:{} failed: {} ({} held by tensors, {} free of {})",
                                       mib(size), device, cudaGetErrorString(status), mib(p.stats.in_use),
                                       mib(free_bytes), mib(total_bytes)));
    }
    ++p.stats.device_mallocs;
    p.stats.reserved += size;
  }
  if (capture && p.pool_of.emplace(block, p.capturing).second) capture->owned += size;
  p.live.emplace(block, size);
  ++p.stats.allocations;
  p.stats.in_use += size;
  p.stats.peak = std::max(p.stats.peak, p.stats.in_use);
  return block;
}

// Called from Storage's destructor: never throws.
void device_free(void* block, int device) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  DevicePool& p = pool(a, device);
  auto it = p.live.find(block);
  if (it == p.live.end()) {
    std::fprintf(stderr, "harmonic: freeing %p on cuda:%d, which the allocator did not hand out\n", block, device);
    return;
  }
  const size_t size = it->second;
  p.live.erase(it);
  p.stats.in_use -= size;
  // A block of a live graph's pool, or any block freed during a capture, stays the graph's.
  auto owner = p.pool_of.find(block);
  auto capture = owner != p.pool_of.end() ? p.capture_pools.find(owner->second) : p.capture_pools.end();
  if (capture == p.capture_pools.end()) {  // not a live graph's block (or its graph is gone)
    if (owner != p.pool_of.end()) p.pool_of.erase(owner);
    if (p.capturing) {  // freed during a capture: joins the capturing graph's pool
      capture = p.capture_pools.find(p.capturing);
      p.pool_of.emplace(block, p.capturing);
      capture->second.owned += size;
    }
  }
  if (capture != p.capture_pools.end()) {
    capture->second.free_blocks[size].push_back(block);
    p.stats.graph_pools += size;
    return;
  }
  if (caching_disabled()) {
    DeviceGuard guard(device);
    raw_free(block);
    p.stats.reserved -= size;
    return;
  }
  p.free_blocks[size].push_back(block);
  p.stats.cached += size;
}

[[maybe_unused]] const bool bound = [] {
  device_alloc_kernel.cuda = device_alloc_kernel.twin = device_alloc;
  device_free_kernel.cuda = device_free_kernel.twin = device_free;
  return true;
}();

}  // namespace

size_t allocation_size_class(size_t nbytes) {
  constexpr size_t kSmall = 512, kLarge = size_t{1} << 20;
  if (nbytes <= kSmall) return kSmall;  // zero-byte tensors get a real block too
  if (nbytes < kLarge) return (nbytes + kSmall - 1) / kSmall * kSmall;
  const size_t step = std::bit_floor(nbytes) / 8;  // 8 classes per power of two: <= 12.5% waste
  return (nbytes + step - 1) / step * step;
}

AllocatorStats allocator_stats(int device) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  if (device < 0 || static_cast<size_t>(device) >= a.pools.size()) return {};
  return a.pools[device].stats;
}

void reset_peak_stats(int device) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  if (device >= 0 && static_cast<size_t>(device) < a.pools.size())
    a.pools[device].stats.peak = a.pools[device].stats.in_use;
}

void empty_cache() {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  for (size_t d = 0; d < a.pools.size(); ++d) release_cached(a.pools[d], static_cast<int>(d));
}

uint64_t create_capture_pool(int device) {
  check_device(device, "create_capture_pool");
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  const uint64_t id = next_capture_pool++;
  pool(a, device).capture_pools.emplace(id, CapturePool{});
  return id;
}

void set_capture_pool(int device, uint64_t id) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  DevicePool& p = pool(a, device);
  check(id == 0 || p.capture_pools.count(id), "set_capture_pool", "no capture pool {} on cuda:{}", id, device);
  p.capturing = id;
}

void release_capture_pool(int device, uint64_t id) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  DevicePool& p = pool(a, device);
  auto it = p.capture_pools.find(id);
  if (it == p.capture_pools.end()) return;
  if (p.capturing == id) p.capturing = 0;
  for (auto& [size, blocks] : it->second.free_blocks)
    for (void* b : blocks) {
      p.pool_of.erase(b);
      p.stats.graph_pools -= size;
      p.free_blocks[size].push_back(b);
      p.stats.cached += size;
    }
  p.capture_pools.erase(it);  // its live blocks join the cache when freed (device_free)
}

size_t capture_pool_bytes(int device, uint64_t id) {
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  if (device < 0 || static_cast<size_t>(device) >= a.pools.size()) return 0;
  const DevicePool& p = a.pools[device];
  auto it = p.capture_pools.find(id);
  return it == p.capture_pools.end() ? 0 : it->second.owned;
}

void* pinned_alloc(size_t nbytes) {
  const size_t rounded = std::max<size_t>(64, (nbytes + 63) / 64 * 64);
  void* p = nullptr;
  if (!available() || emulated()) {
    p = std::aligned_alloc(64, rounded);
    if (!p) throw_error("pinned_alloc", fmt::format("out of host memory allocating {} bytes", nbytes));
    if (!available()) return p;  // no device: ordinary memory, not registered
  } else {
    HM_CUDA_CHECK(cudaMallocHost(&p, rounded));
  }
  // Registered, like the real device's, on the emulated device too (is_pinned answers the same).
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  a.pinned.emplace(static_cast<const char*>(p), rounded);
  return p;
}

void pinned_free(void* p) {
  if (!p) return;
  Allocator& a = allocator();
  std::unique_lock lock(a.mutex);
  if (a.pinned.erase(static_cast<const char*>(p)) == 0) {
    lock.unlock();
    std::free(p);  // the no-device fallback
    return;
  }
  if (emulated()) return std::free(p);
  HM_CUDA_WARN(cudaFreeHost(p));
}

bool is_pinned(const void* p) {
  const char* c = static_cast<const char*>(p);
  Allocator& a = allocator();
  std::lock_guard lock(a.mutex);
  auto it = a.pinned.upper_bound(c);
  if (it == a.pinned.begin()) return false;
  --it;
  return c < it->first + it->second;
}

}  // namespace hm::cuda
