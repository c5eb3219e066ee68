// Host-side interface of the CUDA caching allocator (no CUDA headers; safe anywhere).
// Device storage is bound to device_alloc_kernel / device_free_kernel (core/storage.h).
// Freed blocks are kept per rounded size class and handed out again, so a training step
// that allocates the same shapes every iteration stops calling cudaMalloc after the
// first one. All work on a device runs on its one stream (cuda/runtime/context.h), so a block
// freed by the host can be reused at once: later kernels are ordered after earlier ones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace hm::cuda {

struct AllocatorStats {
  size_t in_use = 0;            // bytes held by live tensors (rounded to size classes)
  size_t peak = 0;              // maximum of in_use since start or reset_peak_stats()
  size_t cached = 0;            // bytes in free lists, ready for reuse
  size_t graph_pools = 0;       // free bytes kept for CUDA graphs' private pools (not reusable by others)
  size_t reserved = 0;          // in_use + cached + graph_pools: what cudaMalloc currently holds
  uint64_t allocations = 0;     // requests served
  uint64_t cache_hits = 0;      // requests served from a free list
  uint64_t device_mallocs = 0;  // cudaMalloc calls
};

// Stats of one device (all zero for a device never used, and in CPU-only builds).
AllocatorStats allocator_stats(int device = 0);
void reset_peak_stats(int device = 0);
// Returns every cached block of every device to the driver (waits for the devices first).
void empty_cache();
// The size class a request of nbytes is rounded up to (exposed for tests and stats).
size_t allocation_size_class(size_t nbytes);

// Private pools of CUDA graphs (cuda/runtime/graph.h). While a device's capture pool is set,
// every allocation on it is served from the pool (its own free blocks first, else the cache or
// the driver), and every block freed on it joins the pool, since a captured kernel may still
// use it. A pool's blocks, freed later, go back to the pool and are never handed to an
// allocation outside a capture into it; release_capture_pool gives its free blocks to the cache
// (and its live ones go there when freed).
uint64_t create_capture_pool(int device);             // a new pool's id (never 0)
void set_capture_pool(int device, uint64_t pool);     // 0: none (the capture ended)
void release_capture_pool(int device, uint64_t pool);
size_t capture_pool_bytes(int device, uint64_t pool); // bytes the pool owns, live and free (0: unknown id)

// Page-locked host memory for data loading: host->device copies from it run at full bus
// speed. The copy kernel waits for a copy out of pinned memory before returning, so the
// buffer may be refilled at once. Without a device (or in CPU-only builds) this falls back
// to ordinary 64-byte-aligned memory, so loaders can use it unconditionally.
void* pinned_alloc(size_t nbytes);
void pinned_free(void* p);
bool is_pinned(const void* p);

struct PinnedDeleter {
  void operator()(void* p) const { pinned_free(p); }
};
using PinnedBuffer = std::unique_ptr<void, PinnedDeleter>;
inline PinnedBuffer make_pinned_buffer(size_t nbytes) { return PinnedBuffer(pinned_alloc(nbytes)); }

}  // namespace hm::cuda
