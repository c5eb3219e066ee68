// Host-side view of the CUDA backend, safe to include anywhere (no CUDA headers).
// Whether a device exists is decided at run time: a CUDA-enabled binary runs on a
// machine without a GPU and reports available() == false.
#pragma once
#include <cstddef>
#include <string>

namespace hm::cuda {

bool compiled();        // the backend was built into this library
int device_count();     // devices visible now (0 without a driver or GPU; 1 when emulated); never throws
bool available();       // compiled() && device_count() > 0
bool emulated();        // cuda:0 is the emulated device (HARMONIC_EMULATE_CUDA=1 and no GPU; cuda/runtime/emulation.h)
std::string describe(); // one line for logs: "2 x NVIDIA A100 ..." or why none
void synchronize();     // waits for the current device's stream
// Bytes a new allocation on `device` can still get: the driver's free memory plus the
// allocator's cached blocks (0 without a device).
size_t memory_available(int device);

}  // namespace hm::cuda
