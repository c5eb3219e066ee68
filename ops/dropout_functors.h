// Scalar pieces of the nn functions shared by the CPU kernels and the CUDA kernels (HM_HD),
// so both backends draw the same dropout masks.
#pragma once
#include <cstdint>

#include "harmonic/core/host_device.h"
#include "harmonic/core/philox.h"

namespace hm {

// Element i of a dropout draw (seed, offset) survives when its uniform is >= p, so
// P(keep) = 1 - p. Every dtype draws float uniforms: masks agree across dtypes and devices.
HM_HD bool dropout_keep(uint64_t seed, uint64_t offset, uint64_t i, float p) {
  return philox::uniform<float>(seed, offset, i) >= p;
}

}  // namespace hm
