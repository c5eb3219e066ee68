// Per-device kernel slots. An op calls its slot with the device of its inputs; the CPU
// kernel is bound when the slot is defined, and the CUDA library fills the `cuda` pointer
// during its static initialisation (which only stores a pointer: it never touches the
// driver). A device with no kernel gets a clear error instead of a crash, so adding a
// backend means adding kernels, never editing the ops.
//
// A call on a CUDA device runs inside a kernel scope: only there may host code take typed
// pointers into device memory (Tensor::data<T>(), to hand them to a launch); anywhere else
// such an access throws, as the read would fault on a real GPU. On the emulated device
// (HARMONIC_EMULATE_CUDA=1 without a GPU, cuda/runtime/emulation.h) the call runs the kernel's host
// twin over host memory (GEMM's and the FFT's too), or the CPU kernel for a slot without a twin.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "harmonic/core/device.h"
#include "harmonic/core/error.h"

namespace hm {

// True when cuda:0 is the emulated device (decided once, at the first CUDA call).
bool cuda_emulated();

// CUDA graph capture (cuda/runtime/graph.h). True while the calling thread captures a graph on
// the emulated device cuda:device: its kernel calls are then recorded (cuda_capture_record)
// with copies of their arguments and not run, as a GPU's capture runs nothing.
bool cuda_capture_recording(int device);
void cuda_capture_record(std::string_view name, std::function<void()> call);
// Throws "[fn] <what> while a CUDA graph is being captured ..." while the calling thread
// captures on cuda:device (a GPU or the emulated one); a no-op otherwise.
void cuda_check_not_capturing(int device, std::string_view fn, std::string_view what);

// Host code inside a CUDA kernel call (see above); nests.
class KernelScope {
 public:
  KernelScope() { ++depth(); }
  ~KernelScope() { --depth(); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
  static bool active() { return depth() > 0; }

 private:
  static int& depth() {
    static thread_local int d = 0;
    return d;
  }
};

// The op-level profiler's hook (core/profiler.h): while a Profiler is alive, every kernel
// call is timed, outermost calls only (a kernel that calls another slot counts once).
namespace profiler {
inline std::atomic<bool> active{false};
class KernelRange {
 public:
  KernelRange(std::string_view name, Device device);
  ~KernelRange();
  KernelRange(const KernelRange&) = delete;
  KernelRange& operator=(const KernelRange&) = delete;

 private:
  int slot_ = -1;  // the row; -1: nested in another kernel call
  int device_ = 0;
  void* start_event_ = nullptr;  // a device event (CUDA), else start_ms_ on the host clock
  double start_ms_ = 0;
};
}  // namespace profiler

template <class Signature> struct Kernel;

template <class R, class... Args>
struct Kernel<R(Args...)> {
  using Fn = R (*)(Args...);
  std::string_view name;
  Fn cpu = nullptr;
  Fn cuda = nullptr;
  Fn twin = nullptr;  // the CUDA kernel's host twin (cuda/runtime/emulation.h), when it has one
  // Recorded during a graph capture on the emulated device (the allocator's and the byte
  // copies' slots are not: they run, and decide themselves what a capture allows).
  bool recorded = true;

  R operator()(Device device, Args... args) const {
    Fn fn = device.is_cuda() ? cuda : cpu;
    if (!fn) [[unlikely]]
      throw_error(name, fmt::format("no kernel for device {} ({})", device.str(),
                                    device.is_cuda() ? "Harmonic was built without CUDA or this op has no CUDA kernel yet"
                                                     : "missing CPU kernel"));
    if (profiler::active.load(std::memory_order_relaxed)) [[unlikely]] {
      profiler::KernelRange range(name, device);
      return call(fn, device, std::forward<Args>(args)...);
    }
    return call(fn, device, std::forward<Args>(args)...);
  }

 private:
  // A recorded argument is a value: string_view (a name) is kept as a string; Tensors share
  // their buffers, which the record keeps alive. Raw pointers inside argument structs
  // (GemmDesc) stay valid because blocks freed during a capture stay in the graph's pool.
  template <class T>
  using Stored = std::conditional_t<std::is_same_v<std::decay_t<T>, std::string_view>, std::string, std::decay_t<T>>;

  R call(Fn fn, Device device, Args... args) const {
    if (!device.is_cuda()) return fn(std::forward<Args>(args)...);
    if (cuda_emulated()) {
      fn = twin ? twin : cpu;
      if constexpr (std::is_void_v<R>)
        if (recorded && cuda_capture_recording(device.index)) [[unlikely]] {
          cuda_capture_record(name, [fn, stored = std::tuple<Stored<Args>...>(args...)] {
            KernelScope scope;
            std::apply(fn, stored);
          });
          return;
        }
    }
    KernelScope scope;
    return fn(std::forward<Args>(args)...);
  }
};

}  // namespace hm
