// Host-side view of the per-device CUDA state (no CUDA headers; safe anywhere). Each
// device gets one stream, and lazily created cuBLAS / cuBLASLt / cuDNN handles bound to
// it, on first use: never at static initialisation, so a GPU-less machine never touches
// the driver. All Harmonic work on a device is ordered on its stream; the typed handles
// are in cuda/device/context.cuh for .cu files.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hm::cuda {

int current_device();
// Makes `device` current for a scope and restores the previous one (cheap when equal).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Waits until all work queued on the device's stream has finished.
void synchronize_device(int device);
// How often the host has waited for cuda:device's stream so far: copies to the host,
// synchronisations and device-side checks whose verdict the host reads (an index out of range).
// While the host does not wait it queues the next kernels as the device runs the last ones, so a
// training step should wait only where it logs. Counted on the emulated device too.
uint64_t host_waits(int device = 0);
// Counts one wait (the runtime's copies and checks call it).
void count_host_wait(int device);
// Byte copies between host memory and cuda:device that wait for the device without counting a
// wait: the deferred checks (cuda/runtime/deferred_checks.h) read their verdicts with them inside
// a wait already counted.
void copy_words_from_device(int device, void* host_dst, const void* device_src, size_t nbytes);
void copy_words_to_device(int device, void* device_dst, const void* host_src, size_t nbytes);
// Streaming multiprocessors of the device (cached), for launch geometry.
int sm_count(int device);
// Throws a clear hm::Error naming `fn` unless cuda:device exists.
void check_device(int device, const char* fn);

}  // namespace hm::cuda
