// Host twins of the CUDA kernels, for machines without a GPU (CUDA builds only).
//
// Two uses. The emulated device: with HARMONIC_EMULATE_CUDA=1 on a machine without a GPU,
// cuda:0 exists, its memory is host memory (through the same caching allocator), and every
// kernel call on it runs the slot's host twin (core/dispatch.h; GEMM's a loop with cuBLAS's
// accumulation types, the FFT's the CPU transforms); the framework above sees a CUDA device, so device bugs of
// tasks and trainers (placement, host reads of device memory) show on CI. And the twin
// tests: HostEmulation below runs the twins on CPU tensors to compare them with the CPU.
//
// Each CUDA kernel is an HM_HD functor launched by cuda/device/launch.cuh; its host twin runs the
// same functor in a plain loop over CPU tensors, with the same dim merging, index math,
// dtype conversions and (for reductions) the same work split and summation order. A .cu
// file binds a slot with bind_cuda(slot, device_fn, host_twin). While a HostEmulation is
// alive, the `cpu` pointer of every such slot runs the twin, so a whole op, forward and
// backward, can be compared against the real CPU kernels (tests/cuda/test_cuda_device.cpp).
#pragma once
#include <functional>
#include <string_view>
#include <vector>

#include "harmonic/core/dispatch.h"

namespace hm::cuda {

struct HostTwin {
  std::string_view name;
  std::function<void(bool on)> toggle;  // swaps the twin into / out of the slot's cpu pointer
};
std::vector<HostTwin>& host_twins();  // filled at static initialisation (pointer stores only)

// Binds slot.cuda and registers the twin. Returns true, for `const bool bound = ...`.
template <class Sig>
bool bind_cuda(Kernel<Sig>& slot, typename Kernel<Sig>::Fn device_fn, typename Kernel<Sig>::Fn host_twin) {
  slot.cuda = device_fn;
  slot.twin = host_twin;
  host_twins().push_back({slot.name, [&slot, host_twin, saved = typename Kernel<Sig>::Fn{}](bool on) mutable {
                            if (on)
                              saved = slot.cpu, slot.cpu = host_twin;
                            else
                              slot.cpu = saved;
                          }});
  return true;
}

// Scope in which CPU ops run the CUDA kernels' host twins. Not thread-safe: tests only.
class HostEmulation {
 public:
  explicit HostEmulation(bool force_64bit_indexing = false);
  ~HostEmulation();
  HostEmulation(const HostEmulation&) = delete;
  HostEmulation& operator=(const HostEmulation&) = delete;
  static std::vector<std::string_view> emulated_kernels();

 private:
  bool previous_force64_ = false;
};

// Inside a HostEmulation: the real CPU kernels for this scope (to compute reference values).
// A no-op outside one.
class RealCpuKernels {
 public:
  RealCpuKernels();
  ~RealCpuKernels();
  RealCpuKernels(const RealCpuKernels&) = delete;
  RealCpuKernels& operator=(const RealCpuKernels&) = delete;

 private:
  bool paused_ = false;
};

}  // namespace hm::cuda
