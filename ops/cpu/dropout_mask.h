// Dropout keep factors for a run of consecutive elements of one Philox draw, vectorised: the
// Philox blocks (4 uniforms each) are generated 16 at a time in a SIMD loop, so the mask of
// element i is exactly dropout_keep(seed, offset, i, p) (ops/nn_functors.h) at a fraction of
// the scalar cost. Used by the CPU dropout and fused attention kernels.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/philox.h"

namespace hm {

// z[c] = (uniform(seed, offset, base + c) >= p) ? scale : 0 for c in [0, n).
template <class T>
void dropout_factors(uint64_t seed, uint64_t offset, uint64_t base, int64_t n, float p, T scale, T* z) {
  constexpr int64_t kBlocks = 16;
  uint32_t u[4 * kBlocks];  // element order: u[4 b + lane] is uniform lane of block b
  int64_t c = 0;
  while (c < n) {
    const uint64_t i = base + static_cast<uint64_t>(c), first = i / 4;
    const int64_t lane0 = static_cast<int64_t>(i % 4), count = std::min<int64_t>(n - c, 4 * kBlocks - lane0);
#pragma omp simd
    for (int64_t b = 0; b < kBlocks; ++b) {
      const philox::Block r = philox::generate(seed, offset + first + static_cast<uint64_t>(b));
      u[4 * b] = r.v[0], u[4 * b + 1] = r.v[1], u[4 * b + 2] = r.v[2], u[4 * b + 3] = r.v[3];
    }
    const uint32_t* ue = u + lane0;
    T* zc = z + c;
#pragma omp simd
    for (int64_t e = 0; e < count; ++e) zc[e] = philox::to_unit_float(ue[e]) >= p ? scale : T(0);
    c += count;
  }
}

}  // namespace hm
