// The per-thread host block cache behind CPU tensor storage.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "harmonic/core/cpu_allocator.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/ops.h"

using namespace hm;

TEST_CASE("cpu allocator: 64-byte aligned blocks, reused from the thread's cache") {
  cpu_cache_clear();
  void* a = cpu_allocate(100);  // 128-byte class
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  std::memset(a, 1, 100);
  cpu_deallocate(a);
  CHECK(cpu_cache_stats().cached_blocks == 1);
  CHECK(cpu_cache_stats().cached_bytes == 128);
  void* b = cpu_allocate(128);  // same class: the cached block comes back
  CHECK(b == a);
  CHECK(cpu_cache_stats().cached_blocks == 0);
  void* c = cpu_allocate(129);  // next class: a new block
  CHECK(c != a);
  cpu_deallocate(b);
  cpu_deallocate(c);
  CHECK(cpu_cache_stats().cached_bytes == 128 + 256);
  cpu_cache_clear();
  CHECK(cpu_cache_stats().cached_blocks == 0);
  cpu_deallocate(nullptr);  // no-op
}

TEST_CASE("cpu allocator: large blocks and empty requests") {
  cpu_cache_clear();
  void* big = cpu_allocate(size_t{3} << 20);  // beyond the cached classes
  CHECK(reinterpret_cast<uintptr_t>(big) % 64 == 0);
  cpu_deallocate(big);
  CHECK(cpu_cache_stats().cached_blocks == 0);
  void* empty = cpu_allocate(0);
  CHECK(empty != nullptr);
  cpu_deallocate(empty);
  CHECK(cpu_cache_stats().cached_blocks == 1);
  cpu_cache_clear();
}

TEST_CASE("cpu allocator: big blocks are reused process-wide, best fit") {
  cpu_cache_clear();
  const size_t mib = size_t{1} << 20;
  void* a = cpu_allocate(16 * mib);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  std::memset(a, 1, 16 * mib);
  cpu_deallocate(a);
  CHECK(cpu_cache_stats().big_blocks == 1);
  CHECK(cpu_cache_stats().big_bytes == int64_t(16 * mib));
  void* b = cpu_allocate(15 * mib);  // within 1/8: the cached block comes back
  CHECK(b == a);
  CHECK(cpu_cache_stats().big_blocks == 0);
  void* c = cpu_allocate(10 * mib);                // nothing cached fits: a new block
  std::thread([b] { cpu_deallocate(b); }).join();  // freed on another thread, cached for all
  CHECK(cpu_cache_stats().big_blocks == 1);
  void* d = cpu_allocate(9 * mib);  // 16 MiB is more than 1/8 too big for 9: not reused
  CHECK(d != b);
  for (void* p : {c, d}) cpu_deallocate(p);
  CHECK(cpu_cache_stats().big_blocks == 3);
  cpu_cache_clear();
  CHECK(cpu_cache_stats().big_blocks == 0);
  CHECK(cpu_cache_stats().big_bytes == 0);
}

TEST_CASE("cpu allocator: the cache per class is bounded") {
  cpu_cache_clear();
  std::vector<void*> blocks;
  for (int i = 0; i < 200; ++i) blocks.push_back(cpu_allocate(64));
  for (void* p : blocks) cpu_deallocate(p);
  CHECK(cpu_cache_stats().cached_blocks == 64);
  cpu_cache_clear();
}

TEST_CASE("cpu allocator: blocks may be freed on another thread, tensors keep working") {
  cpu_cache_clear();
  void* p = cpu_allocate(1000);
  std::thread([p] { cpu_deallocate(p); }).join();  // lands in (and leaves with) that thread's cache
  CHECK(cpu_cache_stats().cached_blocks == 0);
  Tensor t = arange(0, 1000, 1, {.dtype = DType::Float32});
  Tensor u = add(t, t);
  CHECK(select(u, 0, 999).item<double>() == 1998.0);
}
