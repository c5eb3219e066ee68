// Kernel slots of the fused Fourier attention (ops/fourier_attention.h) and the scalar
// pieces of log|sinc| shared by the CPU and CUDA kernels (HM_HD).
#pragma once
#include <cmath>
#include <cstdint>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/host_device.h"
#include "harmonic/core/tensor.h"

namespace hm {

// |sinc| below this is treated as this (x at a multiple of pi): keeps log finite. The
// derivative is 0 there, which is exactly the derivative of the clamped function.
constexpr double kFourierSincFloor = 1e-30;

// log|sin(x) / x|; the series -x^2/6 - x^4/180 near 0 where sin(x)/x loses digits.
template <class T>
HM_HD T log_abs_sinc(T x) {
  using std::log, std::sin;
  const T ax = x < T(0) ? -x : x;
  if (ax < T(1e-3)) {
    const T x2 = x * x;
    return -x2 * (T(1) / T(6) + x2 * (T(1) / T(180)));
  }
  T s = sin(x) / x;
  s = s < T(0) ? -s : s;
  return log(s > T(kFourierSincFloor) ? s : T(kFourierSincFloor));
}

// d/dx log|sinc x| = cot x - 1/x; -x/3 - x^3/45 near 0; 0 where |sinc| hits the floor.
template <class T>
HM_HD T dlog_abs_sinc(T x) {
  using std::cos, std::sin;
  const T ax = x < T(0) ? -x : x;
  if (ax < T(1e-3)) return -x * (T(1) / T(3) + x * x * (T(1) / T(45)));
  const T s = sin(x);
  const T as = s < T(0) ? -s : s;
  if (as <= T(kFourierSincFloor) * ax) return T(0);
  return cos(x) / s - T(1) / x;
}

// A row's normaliser, relative to its largest logit m: s = sum_j exp(l_ij - m) plus eps / exp(m)
// for the authors' A = K / (sum K + eps). m <= 0 (|sinc| <= 1), so exp(-m) may overflow: then the
// weights are 0, as K / eps with K < e^m underflowing would be. The backward needs nothing else:
// dA_ij/dl_ik = A_ij (delta_jk - A_ik) holds for either normaliser.
template <class T>
HM_HD T fourier_attention_denominator(T s, T m, double eps) {
  using std::exp;
  return eps == 0.0 ? s : s + static_cast<T>(eps) * exp(-m);
}

// Everything but the tensors: shared by forward and backward.
struct FourierAttentionArgs {
  int64_t p = 4;
  bool causal = false;
  double eps = 0.0;        // A = K / (sum K + eps) (fourier_attention_denominator)
  double dropout_p = 0.0;  // 0 = no dropout
  uint64_t seed = 0, offset = 0;
  // A draw inside a CUDA graph capture (core/philox_draw.h): the kernel adds this device value
  // to offset. Null otherwise.
  const int64_t* offset_base = nullptr;
};

// q (B,H,Nq,D), k (B,H,Nk,D), v (B,H,Nk,Dv), R (D) contiguous, same float dtype; pad bool
// (B,Nk) or undefined. Writes out (B,H,Nq,Dv) and either attn (B,H,Nq,Nk) = A before dropout
// or, when attn is undefined (recompute), lse (B,H,Nq) = the rows' logsumexp (-inf: all masked).
inline Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& pad,
                   const FourierAttentionArgs& args, const Tensor& out, const Tensor& attn, const Tensor& lse)>
    fourier_attention_kernel{"fourier_attention"};

// From the saved attn (or, when it is undefined, from lse with the logits recomputed row by
// row, and the forward's out; pad as in the forward) and the output gradient g (B,H,Nq,Dv):
// fills dq, dk, dv, dR (D) (all defined and contiguous; the kernel initialises them).
inline Kernel<void(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, const Tensor& attn,
                   const Tensor& pad, const Tensor& lse, const Tensor& out, const Tensor& g,
                   const FourierAttentionArgs& args, const Tensor& dq, const Tensor& dk, const Tensor& dv,
                   const Tensor& dR)>
    fourier_attention_backward_kernel{"fourier_attention_backward"};

// The cases CUDA's tiled kernels take (cuda/fourier_attention_tiled.cu): float32, even p,
// D = Dv in {8, 16, 32, 64}, either normalisation. There, on a CUDA device, the op saves lse and out,
// not A, whatever `recompute` says: the tiles need O(N) memory, not O(N^2).
inline bool fourier_attention_tiled_covers(int64_t p, int64_t D, int64_t Dv, DType dtype) {
  return dtype == DType::Float32 && p % 2 == 0 && D == Dv && (D == 8 || D == 16 || D == 32 || D == 64);
}
// Runs of the tiled kernels (forward or backward, device or host twin) since start-up: tests
// check with it that the path they meant to test ran.
int64_t& fourier_attention_tiled_runs();

}  // namespace hm
