// The FourierFormer attention kernel for MultiheadAttention (kernel = Fourier): a learnable
// bandwidth R (a scalar, or one per head dimension) and the power p (even in the paper; odd p
// is the signed kernel of ops/fourier_attention.h, whose training diverges). Its attend() runs
// the fused ops/fourier_attention op; forward() gives the logits for masks the fused op does
// not take (attn_mask, additive_bias), composed from plain ops (even p only).
#pragma once
#include "harmonic/nn/attention.h"

namespace hm::nn {

class FourierScore : public AttentionScore {
 public:
  explicit FourierScore(int64_t head_dim, FourierKernelOptions options = {});
  // R starts at r_init (2 for language modelling, 1 for images in the paper).
  FourierScore(int64_t head_dim, double r_init, bool r_per_dim = false, int64_t p = 4);
  Tensor forward(const Tensor& q, const Tensor& k) override;  // (B,H,Nq,D), (B,H,Nk,D) -> (B,H,Nq,Nk)
  Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask, double dropout_p,
                bool training, Generator* gen) override;

  // The bandwidth R, () or (head_dim): the parameter R, or exp of the parameter log_R (log_r).
  Tensor bandwidth() const;

  int64_t head_dim, p;
  double eps = 0.0;        // A = K / (sum_j K + eps) (FourierKernelOptions::eps)
  bool recompute = false;  // O(N D) memory: backward recomputes the logits (ops/fourier_attention.h)
  Tensor R;                // the parameter "R" (() or (head_dim)); undefined with log_r
  Tensor log_R;            // the parameter "log_R" with log_r, else undefined
};

}  // namespace hm::nn
