// Which kernels run scaled_dot_product_attention on a CUDA device, decided here and in the .cpp
// beside it (host code, every build). nn::DotProductScore takes the op unless given an attn_mask.
//
// The op (ops/scaled_dot_product_attention.cpp) first asks sdpa_takes_composed, which this file
// binds, whether the composed form answers the call; if not, it calls the fused slots, whose CUDA
// bodies (cuda/scaled_dot_product_attention.cu) run what sdpa_forward_route / sdpa_backward_route
// say. The candidates:
//   composed   detail::scaled_dot_product_attention_composed: GEMMs (cuBLAS) over the
//              materialised (B, H, Nq, Nk) weights;
//   tiled      cuda/scaled_dot_product_attention_flash.cu, flash-attention 2; its backward in one
//              pass (dq summed by atomics) or two (a fixed order: core/deterministic.h);
//   reference  cuda/scaled_dot_product_attention.cu's kernels, a thread per query row or key.
// Under SdpaPath::Auto (the default), for CUDA tensors:
//   1. tiled where sdpa_flash_covers the case and sdpa_flash_faster (kSdpaMeasuredCases), or
//      everywhere they cover it with HARMONIC_FLASH=1; never with HARMONIC_FLASH=0;
//   2. else composed where sdpa_composed_fits its weights in memory;
//   3. else tiled where they cover the case (unless HARMONIC_FLASH=0);
//   4. else reference.
// The tiled backward takes two passes under deterministic() or when the bias wants its gradient,
// one pass otherwise. The tiled kernels still decline (the reference runs) on a device whose
// shared memory per block cannot hold their tiles (none of those measured). CPU tensors always
// run the CPU kernels (ops/cpu/scaled_dot_product_attention.cpp), and the host twins (CPU
// tensors inside a cuda::HostEmulation) the fused slots' choice between tiled and reference.
#pragma once
#include <cstdint>

#include "harmonic/core/device.h"
#include "harmonic/core/dtype.h"

namespace hm::cuda {

// SdpaPath::Auto as above; the others (tests, benchmarks) force one choice:
//   Reference: the reference kernels.   Composed: the composed form.
//   Flash:     the tiled kernels wherever they cover the case, the reference elsewhere.
enum class SdpaPath { Auto, Reference, Composed, Flash };

// The path in force: the innermost ScopedSdpaPath, else Auto.
SdpaPath sdpa_path();
// Sets the path for its lifetime (tests and benchmarks; not thread-safe).
class ScopedSdpaPath {
 public:
  explicit ScopedSdpaPath(SdpaPath path);
  ~ScopedSdpaPath();
  ScopedSdpaPath(const ScopedSdpaPath&) = delete;
  ScopedSdpaPath& operator=(const ScopedSdpaPath&) = delete;

 private:
  SdpaPath previous_;
};

// Whether the fused slots take the tiled kernels where those cover the case: path Flash, or path
// Auto unless HARMONIC_FLASH=0 (read once).
bool sdpa_flash_enabled();
// HARMONIC_FLASH=1: Auto takes the tiled kernels wherever they cover the case.
bool sdpa_flash_forced();

// The cases the tiled kernels are compiled for: float32, D == Dv in {16, 32, 64, 80, 96, 128}.
inline bool sdpa_flash_covers(int64_t D, int64_t Dv, DType dtype) {
  return dtype == DType::Float32 && D == Dv && (D == 16 || D == 32 || D == 64 || D == 80 || D == 96 || D == 128);
}

// One measured case: causal float32 forward+backward, milliseconds, of the tiled kernels (two-pass
// backward) and the composed form at (B, H, N, D), N queries and keys.
struct SdpaMeasuredCase {
  int64_t B, H, N, D;
  double tiled_ms, composed_ms;
};
// `harmonic bench --attention --device cuda` on an H200 (tools/bench/gpu/gpu_runs/h200-2026-11-29/
// flash_check.log, columns flash and composed).
inline constexpr SdpaMeasuredCase kSdpaMeasuredCases[] = {
    {8, 16, 1024, 64, 7.6613, 8.4416},   {8, 12, 1024, 64, 6.0127, 6.3014},   {8, 12, 256, 64, 0.6865, 0.5144},
    {4, 16, 1024, 128, 10.0889, 5.2665}, {8, 12, 4096, 64, 78.0993, 96.3578},
};
// Where the tiled kernels measured faster than the composed form (kSdpaMeasuredCases; a test
// holds the rule to the table): head dims up to 96 with at least 512 keys.
inline bool sdpa_flash_faster(int64_t D, int64_t Nk) { return D <= 96 && Nk >= 512; }

// Whether the composed form's weights, about kSdpaComposedCopies tensors of (B, H, Nq, Nk) alive
// at its peak (logits, masked logits, softmax, their gradients), take at most half the memory
// the device can still allocate.
constexpr int64_t kSdpaComposedCopies = 6;
bool sdpa_composed_fits(int64_t weights, DType dtype, Device device);

// What the fused slots run for q (B,H,Nq,D), v (B,H,Nk,Dv) of this dtype.
enum class SdpaKernel { Tiled, Reference };
SdpaKernel sdpa_forward_route(int64_t D, int64_t Dv, DType dtype);
enum class SdpaBackwardKernel { TiledOnePass, TiledTwoPass, Reference };
SdpaBackwardKernel sdpa_backward_route(int64_t D, int64_t Dv, DType dtype, bool bias_grad);

// Runs of the tiled kernels (forward or backward, device or host twin) since start-up: tests
// check with it that the path they meant to test ran.
int64_t& sdpa_flash_runs();
// Of those, backward passes that took the single pass (dq by atomics).
int64_t& sdpa_flash_single_pass_runs();

}  // namespace hm::cuda
