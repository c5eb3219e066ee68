// Host memory for tensor storage: 64-byte aligned blocks, with a per-thread cache of freed
// small blocks and a process-wide one of freed big blocks (8 MiB and up, at most 4 GiB or a
// quarter of the memory in all). Training small models allocates and frees thousands of tiny
// tensors per step; glibc's aligned allocation path (memalign + consolidation) cost ~15% of
// such a step. Long sequences allocate the same big activations every step; fresh pages cost
// a fault and zeroing each (35-40% of an LSTM layer's step at T=784, B=256, H=200).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hm {

void* cpu_allocate(size_t nbytes);  // throws hm::Error when out of memory
// For host buffers that are not tensors (std::vector in a data generator): throws an hm::Error
// prefixed with fn when count elements of element_bytes cannot fit in RAM + swap (or count is
// negative), where std::vector would throw std::bad_alloc or length_error, or grow until killed.
void check_host_fits(int64_t count, size_t element_bytes, std::string_view fn);
void cpu_deallocate(void* p);  // p from cpu_allocate (any thread) or nullptr

struct CpuCacheStats {
  int64_t cached_blocks = 0;  // free blocks held by the calling thread's cache
  int64_t cached_bytes = 0;
  int64_t big_blocks = 0;  // free big blocks held process-wide
  int64_t big_bytes = 0;
};
CpuCacheStats cpu_cache_stats();  // of the calling thread, and the process-wide big blocks
void cpu_cache_clear();           // returns the calling thread's and the big cached blocks to the system
// Total bytes requested through cpu_allocate by the calling thread (cached or not), so tests
// can check how much memory an operation allocates without timing it.
int64_t cpu_allocated_bytes();

}  // namespace hm
