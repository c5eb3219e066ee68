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
  // A draw inside a CUDA graph capture (core/philox_draw.h): the kernel adds this device value
  // to offset. Null otherwise.
  const int64_t* offset_base = nullptr;
};

// The CPU forward takes a direct path (plain loops, no BLAS tiles) for at most this many query
// rows: a decoding step over a KV cache has one. Measured (README, Chronos bench) it is 1.8x the
// tiled path at head dim 16 (3.3x with a padding mask) and even at 64-128 for one row, but half
// as fast for 2 rows at head dim 64, where the tiles share each key between rows. Tests use it
// to reach both paths.
constexpr int64_t kSdpaDirectRows = 1;

// Whether the device's backend answers this call with the composed form
// (detail::scaled_dot_product_attention_composed) instead of the slots below: set by the CUDA
// backend (cuda/scaled_dot_product_attention_route.cpp, which decides every kernel choice of the
// op on CUDA tensors; false for other tensors). Null until set: the slots run.
inline bool (*sdpa_takes_composed)(const Tensor& q, const Tensor& k, const Tensor& v) = nullptr;

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
