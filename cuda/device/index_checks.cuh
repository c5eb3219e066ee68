// The CUDA kernels' index checks: values of an int64 tensor outside [0, size), other than an
// ignored value (a loss's ignore_index). Outside a DeferredChecks scope the verdict comes back
// at once (one copy and a wait) and a failure throws the CPU kernel's hm::Error; inside one, on
// a CUDA device, it stays on the device until the host's next wait
// (cuda/runtime/deferred_checks.h), and the op's kernels must skip out-of-range values.
#pragma once
#include <optional>

#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/runtime/deferred_checks.h"

namespace hm::cuda {

// Checks `index` read with `strides` over `shape`; positions in the message are row-major in
// that shape, broadcast (stride 0) dims scanned once, as on the CPU.
void check_index_values(Exec exec, int device, const Tensor& index, const Shape& shape, const Strides& strides,
                        int64_t size, std::optional<int64_t> ignore, std::string_view fn, CheckMessage message);

// The same over a contiguous index tensor's flat positions.
inline void check_index_values(Exec exec, int device, const Tensor& index, int64_t size, std::optional<int64_t> ignore,
                               std::string_view fn, CheckMessage message) {
  check_index_values(exec, device, index, Shape{index.numel()}, Strides{1}, size, ignore, fn, std::move(message));
}

// Whether v is a usable index below size (the guard of the kernels that run unchecked).
HM_HD bool index_in_range(int64_t v, int64_t size) { return static_cast<uint64_t>(v) < static_cast<uint64_t>(size); }

}  // namespace hm::cuda
