// Philox draws that a CUDA graph can capture (cuda/runtime/graph.h). A kernel's counters start
// at offset + *base, base being a (1,) int64 tensor on the kernel's device when defined.
//
// Outside a capture reserve_philox is {g.seed(), g.reserve(n), undefined base}: what ops drew
// before graphs existed. While the calling thread captures a graph on `device`, offset is
// relative to g's offset at the capture's first draw from g, and base is the graph's device
// copy of g's offset. The capture itself leaves g where it was (it runs nothing); each replay
// fills base with g's offset and advances g past the step's draws, so the k-th replay draws the
// numbers the k-th eager step would, and eager draws after it continue the same stream.
// A generator drawn from during a capture must outlive the graph and keep its seed.
#pragma once
#include <cstdint>

#include "harmonic/core/random.h"

namespace hm {

struct PhiloxDraw {
  uint64_t seed = 0;
  uint64_t offset = 0;
  Tensor base;  // undefined outside a capture
};

PhiloxDraw reserve_philox(Generator& g, uint64_t n, Device device);

}  // namespace hm
