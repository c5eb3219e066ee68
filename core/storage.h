// A block of bytes on one device, shared by every view of it. The version counter is
// bumped by in-place writes so autograd can detect a saved tensor that was modified.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "harmonic/core/device.h"
#include "harmonic/core/dispatch.h"

namespace hm {

struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  uint64_t version = 0;

  Storage(size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
};

// Device allocators. The CPU one is 64-byte aligned; the CUDA library binds the other.
inline Kernel<void*(size_t, int)> device_alloc_kernel{"alloc"};
inline Kernel<void(void*, int)> device_free_kernel{.name = "free", .recorded = false};
// Copies nbytes between any two devices (either side may be the CPU).
inline Kernel<void(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes)>
    device_copy_kernel{.name = "copy_bytes", .recorded = false};

}  // namespace hm
