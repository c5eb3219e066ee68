// Host-computed constants (positions, frequencies, bucket indices) on a device, copied once.
//
//   Tensor idx = device_constant(from_vector(buckets, {q, k}), weight.device());
//
// The first call copies `host` to `device`; a later call with the same device, dtype, shape
// and bytes returns that copy. A step that builds its constants on the host thus copies
// nothing to the device after its first run, so a CUDA graph can capture it (a copy from the
// host inside a capture is an error, cuda/runtime/graph.h). The copies are shared and live
// until the process ends: never write to one. At most kMaxDeviceConstants are kept, each at
// most kMaxDeviceConstantBytes; past either a call copies anew. On the CPU it returns `host`.
#pragma once
#include <cstddef>

#include "harmonic/core/tensor.h"

namespace hm {

inline constexpr size_t kMaxDeviceConstants = 1024;
inline constexpr size_t kMaxDeviceConstantBytes = size_t(1) << 20;

Tensor device_constant(const Tensor& host, Device device);

}  // namespace hm
