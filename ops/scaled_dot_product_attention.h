// Scaled dot-product (softmax) attention as one fused op, flash-attention style: out =
// dropout(softmax(q k^T * scale, masked)) v without ever materialising the (B, H, Nq, Nk)
// weights. The forward walks the keys in blocks with an online softmax and saves only each
// row's logsumexp; the backward recomputes the weights block by block (flash-attention 2).
// The composed form (nn::attention, nn/attention.h) is the specification.
#pragma once
#include <cstdint>
#include <optional>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/fourier_attention.h"  // FusedAttentionMask

namespace hm {

// q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv) -> (B, H, Nq, Dv). scale defaults to
// 1/sqrt(D). mask.causal is bottom-right aligned (query i sees keys j <= i + Nk - Nq, so a
// decoding step over a cache sees every cached key); key blocks entirely above the diagonal
// are skipped, not computed. A row with every key masked gives zeros (and zero gradients),
// never NaN. Dropout on the weights uses the Philox stream of `gen` with element index =
// flattened (b, h, i, j), the same mask nn::attention draws from the same generator state.
// mask.additive_bias (like torch's float attn_mask): q's dtype, broadcastable to (B, H, Nq, Nk),
// added to the scaled logits before the pad/causal masks; -inf entries block (a row blocked
// everywhere gives zeros as above). It is expanded to (Bb, Hb, Nq, Nk), Bb in {1, B} and Hb in
// {1, H}, never to the full weights when it is shared across the batch or heads.
// Differentiable in q, k, v and the bias; float32 or float64; the CPU and CUDA kernels alike.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    const FusedAttentionMask& mask = {}, double dropout_p = 0.0, bool training = false,
                                    Generator* gen = nullptr, std::optional<double> scale = std::nullopt);

namespace detail {
// The composed twin: matmul, masked_fill, softmax, dropout, matmul (materialises the weights).
Tensor scaled_dot_product_attention_composed(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const FusedAttentionMask& mask = {}, double dropout_p = 0.0,
                                             bool training = false, Generator* gen = nullptr,
                                             std::optional<double> scale = std::nullopt);
}  // namespace detail

}  // namespace hm
