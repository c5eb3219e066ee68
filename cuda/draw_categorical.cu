// CUDA draw_categorical: a thread per row running DrawCategoricalRow (ops/draw_categorical_functors.h),
// the CPU's row code, so the same uniforms draw the same columns on both. A row's serial sum keeps
// the CPU's order; decoding draws a few hundred rows per token, so one thread each is enough.
// Rows that cannot be drawn from (index -1) fail the index check after the kernel, deferred inside
// a cuda::DeferredChecks scope so a decoding loop does not wait for the device per token.
#include <fmt/format.h>

#include "harmonic/cuda/device/index_checks.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/draw_categorical_functors.h"
#include "harmonic/ops/draw_categorical_kernels.h"

namespace hm::cuda {
namespace {

template <Exec E>
void draw_categorical_on(const Tensor& weights, const Tensor& u, int64_t top_k, const Tensor& index,
                         const Tensor& pmf) {
  const int device = pmf.defined() ? kernel_device(E, "draw_categorical", {&weights, &u, &index, &pmf})
                                   : kernel_device(E, "draw_categorical", {&weights, &u, &index});
  const int64_t n = weights.size(0), m = weights.size(1);
  dispatch_float(weights.dtype(), "draw_categorical", [&]<class T>() {
    for_each_index(E, device, n,
                   DrawCategoricalRow<T>{static_cast<const T*>(weights.raw_data()),
                                         static_cast<const double*>(u.raw_data()), static_cast<int64_t*>(index.raw_data()),
                                         pmf.defined() ? static_cast<double*>(pmf.raw_data()) : nullptr, m, top_k});
  });
  const std::string shape = weights.desc();
  check_index_values(E, device, index, m, std::nullopt, "draw_categorical", [shape](int64_t row, int64_t) {
    return fmt::format("row {} of the weights {} has a negative or non-finite weight, or none positive", row, shape);
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(draw_categorical_kernel, draw_categorical_on<Exec::Device>, draw_categorical_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
