// Parallel scaffolding shared by the CPU reduce kernels over x (outer, r, inner): one task
// per row when inner == 1 (the reduced elements are contiguous), else tasks over blocks of
// kColumnBlock columns that walk k with unit-stride, vectorisable inner loops.
#pragma once
#include <algorithm>
#include <cstdint>

#include "harmonic/core/parallel.h"

namespace hm::cpu {

constexpr int64_t kColumnBlock = 256;

// row(o) for inner == 1, else column(o, i0, i1) with i1 - i0 <= kColumnBlock.
template <class RowFn, class ColumnFn>
void for_each_reduction(int64_t outer, int64_t r, int64_t inner, RowFn&& row, ColumnFn&& column) {
  if (outer * inner == 0) return;
  if (inner == 1) {
    parallel_for(outer, r, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) row(o);
    });
    return;
  }
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  parallel_for(outer * blocks, r * std::min(inner, kColumnBlock), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / blocks, i0 = (t % blocks) * kColumnBlock;
      column(o, i0, std::min(inner, i0 + kColumnBlock));
    }
  });
}

}  // namespace hm::cpu
