// FourierFormer attention (generalised Fourier integral kernel, NOTES section 2) as one fused
// op: A_ij = K_ij / sum_j K_ij with K_ij = prod_d sinc(R_d (q_id - k_jd))^p, out = dropout(A) v.
// Even p: A_ij = softmax_j(p * sum_d log|sinc|), which cannot underflow. Odd p (the paper's
// ablation, which diverges in training): the signed kernel A_ij = s_ij exp(l_ij - m_i) /
// sum_j s_ij exp(l_ij - m_i) with l_ij = p sum_d log|sinc|, s_ij = prod_d sign(sinc) and m_i
// the row max of l. Its denominator can approach (or cross) zero, where the weights blow up:
// that is the divergence, and it is not guarded.
// The (Nq, Nk, D) difference tensor is never materialised: logits are built row by row and
// backward recomputes the per-dimension terms from q, k and the saved A.
#pragma once
#include <cstdint>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm {

// What a query may not see in the fused attention ops (the causal/padding subset of
// nn::AttentionMask); also taken by ops/scaled_dot_product_attention.h.
struct FusedAttentionMask {
  // Query i sees keys j <= i + (Nk - Nq) (bottom-right aligned, like nn::AttentionMask).
  bool causal = false;
  Tensor key_padding_mask{};  // bool (B, Nk), true = padding; undefined = none
  // Float broadcastable to (B, H, Nq, Nk), added to the scaled logits before the masks (T5's
  // relative bias, ALiBi; -inf blocks). scaled_dot_product_attention only: fourier_attention
  // rejects it.
  Tensor additive_bias{};
};
using FourierAttentionMask = FusedAttentionMask;

// q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), R 0-d or (D) -> (B, H, Nq, Dv).
// p must be positive; odd p gives the signed kernel above (not positive definite; weights
// may be negative and unbounded). Masked logits are -inf; a row with every key masked gives
// zeros (and zero gradients), never NaN.
// Dropout on A uses the Philox stream of `gen` with element index = flattened (b, h, i, j).
// Differentiable in q, k, v and R. No 1/sqrt(D) scaling (the kernel has its own bandwidth R).
// recompute = true keeps O(B H N (D + Dv)) memory (flash-style): the forward saves only each
// row's logsumexp and the backward recomputes the logits row by row (about twice the work).
// Odd p ignores recompute (the signed row sums are not a logsumexp) and saves A.
// eps > 0 normalises as the authors' code does, A_ij = K_ij / (sum_j K_ij + eps): rows whose
// kernel values are all small get weights summing to less than one (eps = 0: exactly one).
Tensor fourier_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, int64_t p = 4,
                         const FourierAttentionMask& mask = {}, double dropout_p = 0.0, bool training = false,
                         Generator* gen = nullptr, bool recompute = false, double eps = 0.0);

// The logits alone, composed from plain ops (materialises (B, H, Nq, Nk, D)): the reference
// the fused op is tested against, and the path for masks the fused op does not take. Even p
// only: the odd-p kernel is signed and has no softmax logits.
Tensor fourier_attention_logits_reference(const Tensor& q, const Tensor& k, const Tensor& R, int64_t p = 4);

}  // namespace hm
