// FourierFormer attention (generalised Fourier integral kernel, NOTES section 2) as one fused
// op: A_ij = softmax_j(p * sum_d log|sinc(R_d (q_id - k_jd))|), out = dropout(A) v.
// The (Nq, Nk, D) difference tensor is never materialised: logits are built row by row and
// backward recomputes the per-dimension terms from q, k and the saved A.
#pragma once
#include <cstdint>

#include "core/random.h"
#include "core/tensor.h"

namespace hm {

// What a query may not see in the fused attention ops (the causal/padding subset of
// nn::AttentionMask); also taken by ops/scaled_dot_product_attention.h.
struct FusedAttentionMask {
  // Query i sees keys j <= i + (Nk - Nq) (bottom-right aligned, like nn::AttentionMask).
  bool causal = false;
  Tensor key_padding_mask;  // bool (B, Nk), true = padding; undefined = none
};
using FourierAttentionMask = FusedAttentionMask;

// q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), R 0-d or (D) -> (B, H, Nq, Dv).
// p must be even and positive (odd p is not a positive-definite kernel and diverges). Masked
// logits are -inf; a row with every key masked gives zeros (and zero gradients), never NaN.
// Dropout on A uses the Philox stream of `gen` with element index = flattened (b, h, i, j).
// Differentiable in q, k, v and R. No 1/sqrt(D) scaling (the kernel has its own bandwidth R).
// recompute = true keeps O(B H N (D + Dv)) memory (flash-style): the forward saves only each
// row's logsumexp and the backward recomputes the logits row by row (about twice the work).
Tensor fourier_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& R, int64_t p = 4,
                         const FourierAttentionMask& mask = {}, double dropout_p = 0.0, bool training = false,
                         Generator* gen = nullptr, bool recompute = false);

// The logits alone, composed from plain ops (materialises (B, H, Nq, Nk, D)): the reference
// the fused op is tested against, and the path for masks the fused op does not take.
Tensor fourier_attention_logits_reference(const Tensor& q, const Tensor& k, const Tensor& R, int64_t p = 4);

}  // namespace hm
