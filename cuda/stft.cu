// CUDA bodies of the stft framing slots (ops/stft_kernels.h): the per-element functors of
// ops/fft_functors.h, which the host twins run too.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/fft_functors.h"
#include "harmonic/ops/stft_kernels.h"

namespace hm::cuda {
namespace {

template <Exec E>
void frames_on(const Tensor& x, const Tensor& window, const FrameArgs& args, const Tensor& out) {
  const int device = kernel_device(E, "stft", {&x, &window, &out});
  dispatch_float(x.dtype(), "stft", [&]<class T>() {
    for_each_index(E, device, out.numel(),
                   FrameGather<T>{static_cast<const T*>(x.raw_data()), static_cast<const T*>(window.raw_data()),
                                  static_cast<T*>(out.raw_data()), args});
  });
}

template <Exec E>
void overlap_add_on(const Tensor& g, const Tensor& window, const FrameArgs& args, const Tensor& dx) {
  const int device = kernel_device(E, "stft", {&g, &window, &dx});
  dispatch_float(g.dtype(), "stft", [&]<class T>() {
    for_each_index(E, device, dx.numel(),
                   FrameScatter<T>{static_cast<const T*>(g.raw_data()), static_cast<const T*>(window.raw_data()),
                                   static_cast<T*>(dx.raw_data()), args});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(frame_kernel, frames_on<Exec::Device>, frames_on<Exec::Host>) &&
    bind_cuda(overlap_add_kernel, overlap_add_on<Exec::Device>, overlap_add_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
