// Seeded random generators. A Generator is (seed, offset); each draw reads counters from
// `offset` and advances it, so saving the pair saves the stream exactly (checkpoints).
#pragma once
#include <cstdint>

#include "harmonic/core/tensor.h"

namespace hm {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset) { seed_ = seed, offset_ = offset; }
  // Returns the offset to use for a draw of n numbers and advances past it.
  uint64_t reserve(uint64_t n);

 private:
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;
};

// The generator used when none is passed: one per thread, so runs trained side by side on a
// study's run pool (each seeding it through manual_seed in its own thread) neither race on it
// nor interleave their draws, and a run's numbers do not depend on what runs beside it. A new
// thread's starts at seed 0; draws inside parallel kernels are reserved by the calling thread.
Generator& default_generator();
void manual_seed(uint64_t seed);  // seeds the calling thread's default generator

// Fill contiguous `out` (float32/float64) with draw (seed, offset + base), base being
// *offset_base when that (1,) int64 tensor on out's device is defined (a draw inside a CUDA graph
// capture, core/philox_draw.h), else 0. Per device.
inline Kernel<void(const Tensor& out, uint64_t seed, uint64_t offset, const Tensor& offset_base, double low,
                   double high)>
    uniform_kernel{"uniform_"};
inline Kernel<void(const Tensor& out, uint64_t seed, uint64_t offset, const Tensor& offset_base, double mean,
                   double std)>
    normal_kernel{"normal_"};

}  // namespace hm
