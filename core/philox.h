// Philox4x32-10 (Salmon et al., SC'11): a counter-based generator. Element i of a draw
// depends only on (seed, offset, i), so the same seed gives the same numbers on every
// device and every thread count. Shared by the CPU and CUDA random kernels.
#pragma once
#include <cmath>
#include <cstdint>

#include "harmonic/core/host_device.h"

namespace hm::philox {

struct Block {
  uint32_t v[4];
};

HM_HD Block generate(uint64_t seed, uint64_t counter) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}

// Uniform in [0, 1): 24 random bits for float, 53 for double.
HM_HD float to_unit_float(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }
HM_HD double to_unit_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = (static_cast<uint64_t>(hi) << 21) ^ (lo >> 11);
  return static_cast<double>(bits & ((uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// Uniform number i of a draw: 4 floats or 2 doubles per counter.
template <class T>
HM_HD T uniform(uint64_t seed, uint64_t offset, uint64_t i) {
  if constexpr (sizeof(T) == 4) {
    Block b = generate(seed, offset + i / 4);
    return to_unit_float(b.v[i % 4]);
  } else {
    Block b = generate(seed, offset + i / 2);
    return to_unit_double(b.v[2 * (i % 2)], b.v[2 * (i % 2) + 1]);
  }
}

// Standard normal number i of a draw (Box-Muller on a pair of uniforms, cos then sin).
template <class T>
HM_HD T normal(uint64_t seed, uint64_t offset, uint64_t i) {
  uint64_t pair = i / 2;
  T u1, u2;
  if constexpr (sizeof(T) == 4) {
    Block b = generate(seed, offset + pair / 2);
    int base = static_cast<int>(2 * (pair % 2));
    u1 = to_unit_float(b.v[base]);
    u2 = to_unit_float(b.v[base + 1]);
  } else {
    Block b = generate(seed, offset + pair);
    u1 = to_unit_double(b.v[0], b.v[1]);
    u2 = to_unit_double(b.v[2], b.v[3]);
  }
  T radius = std::sqrt(T(-2) * std::log(T(1) - u1));  // 1 - u1 is in (0, 1]: no log(0)
  T angle = T(6.283185307179586) * u2;
  return (i % 2 == 0) ? radius * std::cos(angle) : radius * std::sin(angle);
}

// Counters a draw of n numbers may consume (so the next draw starts fresh): float64 uses
// one counter per 2 numbers, float32 one per 4; reserve for the larger.
HM_HD uint64_t counters_for(uint64_t n) { return (n + 1) / 2 + 1; }

}  // namespace hm::philox
