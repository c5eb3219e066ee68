// Thread control and a parallel-for over index ranges (OpenMP underneath). Small ranges
// run inline: forking threads costs more than a few thousand cheap elements.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace hm {

void set_num_threads(int n);
int get_num_threads();

// Below this many "element operations" a loop stays on the calling thread; below
// gemm_split_work() multiply-adds a GEMM does (parallel.cpp: how both were chosen).
int64_t parallel_grain();
int64_t gemm_split_work();

// Calls fn(begin, end) on disjoint chunks of [0, n). `cost` is the work per index in
// element operations, so a row of 1000 elements passes cost = 1000.
template <class F>
void parallel_for(int64_t n, int64_t cost, F&& fn) {
  if (n <= 0) return;
  int threads = get_num_threads();
  if (threads <= 1 || n == 1 || n * std::max<int64_t>(cost, 1) < parallel_grain() || omp_in_parallel()) {
    fn(int64_t{0}, n);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads, n);
#pragma omp parallel for num_threads(chunks) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    if (begin < end) fn(begin, end);
  }
}

}  // namespace hm
