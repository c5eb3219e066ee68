#include "harmonic/core/storage.h"

#include "harmonic/core/cpu_allocator.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace hm {
namespace {

void* cpu_alloc(size_t nbytes, int) { return cpu_allocate(nbytes); }
void cpu_free(void* p, int) { cpu_deallocate(p); }

void cpu_copy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  HM_CHECK(dst_device.is_cpu() && src_device.is_cpu(), "copy_bytes", "CPU copy asked to move {} -> {}",
           src_device.str(), dst_device.str());
  if (nbytes) std::memcpy(dst, src, nbytes);
}

// Bind the CPU implementations at static-init time (constant-initialised slots are ready first).
[[maybe_unused]] const bool storage_bound =
    (device_alloc_kernel.cpu = cpu_alloc, device_free_kernel.cpu = cpu_free, device_copy_kernel.cpu = cpu_copy, true);

}  // namespace

Storage::Storage(size_t nbytes_, Device device_) : nbytes(nbytes_), device(device_) {
  data = device_alloc_kernel(device, nbytes, device.index);
}

Storage::~Storage() {
  if (data) device_free_kernel(device, data, device.index);
}

}  // namespace hm
