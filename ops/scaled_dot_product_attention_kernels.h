// Kernel slots of the fused scaled dot-product attention (ops/scaled_dot_product_attention.h).
#pragma once
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"

namespace hm {

// Everything but the tensors: shared by forward and backward.
struct SdpaArgs {
  double scale = 1.0;  // on the logits q k^T
  bool causal = false;
  double dropout_p = 0.0;  // 0 = no dropout
  uint64_t seed = 0, offset = 0;
};

// The CPU forward takes a direct path (plain loops, no BLAS tiles) for at most this many query
// rows: a decoding step over a KV cache has one. Measured (README, Chronos bench) it is 1.8x the
// tiled path at head dim 16 (3.3x with a padding mask) and even at 64-128 for one row, but half
// as fast for 2 rows at head dim 64, where the tiles share each key between rows. Tests use it
// to reach both paths.
constexpr int64_t kSdpaDirectRows = 1;

// What scaled_dot_product_attention runs for CUDA tensors (the CPU always runs its kernels).
//   Auto:      the tiled kernels where sdpa_flash_enabled(), sdpa_flash_covers() and
//              sdpa_flash_faster() (or HARMONIC_FLASH=1); else the composed form (cuBLAS GEMMs,
//              materialised weights) where its weights fit in memory (sdpa_composed_fits); else
//              the tiled kernels where they cover the case; else the reference kernels.
//   Reference: the reference kernels (one thread per query row; the tiled kernels' twin).
//   Composed:  detail::scaled_dot_product_attention_composed.
//   Flash:     the slots take the tiled kernels wherever they cover the case, the reference
//              kernels elsewhere (as Auto with HARMONIC_FLASH=1, but never composed).
enum class SdpaPath { Auto, Reference, Composed, Flash };

// The path in force: the innermost ScopedSdpaPath, else Auto.
SdpaPath sdpa_path();
// Whether the CUDA slots (and their host twins) take the tiled kernels where those cover the
// case: path Flash, or path Auto unless HARMONIC_FLASH=0 (read once). On by default since their
// tests, memcheck and racecheck passed on an H200 (tools/bench/gpu/gpu_runs).
bool sdpa_flash_enabled();
// HARMONIC_FLASH=1: Auto takes the tiled kernels wherever they cover the case.
bool sdpa_flash_forced();
// Where the tiled kernels measured faster than the composed form on an H200 (float32,
// forward+backward: 5.6 against 6.3 ms at 8x12x1024x64, 74 against 99 at N 4096; slower at
// N 256 and at head dim 128): head dims up to 96 with at least 512 keys.
inline bool sdpa_flash_faster(int64_t D, int64_t Nk) { return D <= 96 && Nk >= 512; }
// The cases the tiled kernels are compiled for: float32, D == Dv in {16, 32, 64, 80, 96, 128}.
inline bool sdpa_flash_covers(int64_t D, int64_t Dv, DType dtype) {
  return dtype == DType::Float32 && D == Dv && (D == 16 || D == 32 || D == 64 || D == 80 || D == 96 || D == 128);
}
// Whether the composed form's weights, about kSdpaComposedCopies tensors of (B, H, Nq, Nk) alive
// at its peak (logits, masked logits, softmax, their gradients), take at most half the memory
// the device can still allocate.
constexpr int64_t kSdpaComposedCopies = 6;
bool sdpa_composed_fits(int64_t weights, DType dtype, Device device);

// Runs of the tiled kernels (forward or backward, device or host twin) since start-up: tests
// check with it that the path they meant to test ran.
int64_t& sdpa_flash_runs();
// Of those, backward passes that took the single pass (dQ by atomics; a new kernel).
int64_t& sdpa_flash_single_pass_runs();

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

// q (B,H,Nq,D), k (B,H,Nk,D), v (B,H,Nk,Dv) contiguous, one float dtype; pad bool (B,Nk) or
// undefined; bias (Bb,Hb,Nq,Nk) contiguous in q's dtype with Bb in {1, B} and Hb in {1, H}
// (a size-1 dim is shared by every b or h), added to the scaled logits, or undefined. Writes
// out (B,H,Nq,Dv) and lse (B,H,Nq), each row's logsumexp of the scaled, biased, masked logits
// (-inf: every key masked).
inline Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                   const SdpaArgs& args, const Tensor& out, const Tensor& lse)>
    sdpa_kernel{"scaled_dot_product_attention"};

// From out and lse of the forward and the output gradient g (B,H,Nq,Dv), recomputing the
// weights: fills dq, dk, dv (defined and contiguous; the kernel initialises them) and, when
// defined, dbias (bias's shape): dS = dL/d(logits), summed over the b or h a size-1 bias dim
// shares, in a fixed order (deterministic for any thread count).
inline Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& pad, const Tensor& bias,
                   const Tensor& out, const Tensor& lse, const Tensor& g, const SdpaArgs& args, const Tensor& dq,
                   const Tensor& dk, const Tensor& dv, const Tensor& dbias)>
    sdpa_backward_kernel{"scaled_dot_product_attention_backward"};

}  // namespace hm
