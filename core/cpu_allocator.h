// Host memory for tensor storage: 64-byte aligned blocks, with a per-thread cache of freed
// small blocks. Training small models allocates and frees thousands of tiny tensors per step;
// glibc's aligned allocation path (memalign + consolidation) cost ~15% of such a step.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hm {

void* cpu_allocate(size_t nbytes);  // throws hm::Error when out of memory
void cpu_deallocate(void* p);       // p from cpu_allocate (any thread) or nullptr

struct CpuCacheStats {
  int64_t cached_blocks = 0;  // free blocks held by the calling thread's cache
  int64_t cached_bytes = 0;
};
CpuCacheStats cpu_cache_stats();  // of the calling thread
void cpu_cache_clear();           // returns the calling thread's cached blocks to the system
// Total bytes requested through cpu_allocate by the calling thread (cached or not), so tests
// can check how much memory an operation allocates without timing it.
int64_t cpu_allocated_bytes();

}  // namespace hm
