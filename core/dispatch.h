// Per-device kernel slots. An op calls its slot with the device of its inputs; the CPU
// kernel is bound when the slot is defined, and the CUDA library fills the `cuda` pointer
// during its static initialisation (which only stores a pointer: it never touches the
// driver). A device with no kernel gets a clear error instead of a crash, so adding a
// backend means adding kernels, never editing the ops.
#pragma once
#include <string_view>
#include <utility>

#include "core/device.h"
#include "core/error.h"

namespace hm {

template <class Signature> struct Kernel;

template <class R, class... Args>
struct Kernel<R(Args...)> {
  using Fn = R (*)(Args...);
  std::string_view name;
  Fn cpu = nullptr;
  Fn cuda = nullptr;

  R operator()(Device device, Args... args) const {
    Fn fn = device.is_cuda() ? cuda : cpu;
    if (!fn) [[unlikely]]
      throw_error(name, fmt::format("no kernel for device {} ({})", device.str(),
                                    device.is_cuda() ? "Harmonic was built without CUDA or this op has no CUDA kernel yet"
                                                     : "missing CPU kernel"));
    return fn(std::forward<Args>(args)...);
  }
};

}  // namespace hm
