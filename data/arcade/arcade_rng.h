// A scalar Philox stream for the game and its policies: draw i is word i % 4 of
// philox::generate(seed, (stream << 40) + i / 4), so a (seed, stream) pair names one
// reproducible sequence and copying the object copies its position (a policy can simulate
// the game on a copy without disturbing the real one).
#pragma once
#include <cstdint>

#include "harmonic/core/philox.h"

namespace hm::arcade {

class ArcadeRng {
 public:
  explicit ArcadeRng(uint64_t seed = 0, uint64_t stream = 0) : seed_(seed), base_(stream << 40) {}

  uint32_t next_u32() {
    if (used_ == 4) {
      block_ = philox::generate(seed_, base_ + counter_++);
      used_ = 0;
    }
    return block_.v[used_++];
  }
  double uniform() { return philox::to_unit_double(next_u32(), next_u32()); }  // [0, 1)
  // Uniform integer in [0, n), n >= 1 (multiply-shift; the bias of 2^-32 n is irrelevant here).
  int below(int n) { return static_cast<int>((static_cast<uint64_t>(next_u32()) * static_cast<uint64_t>(n)) >> 32); }
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }  // inclusive
  bool coin() { return (next_u32() & 1u) != 0; }

 private:
  uint64_t seed_ = 0, base_ = 0, counter_ = 0;
  philox::Block block_{};
  int used_ = 4;
};

}  // namespace hm::arcade
