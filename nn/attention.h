// Attention: the masked-softmax core shared by every attention kernel, scaled dot-product
// attention as a free function, the per-step key/value cache for incremental decoding, and
// MultiheadAttention. A kernel only maps (q, k) to logits (an AttentionScore); masking,
// softmax, dropout and the product with v are common (attend), so a new kernel (the
// FourierFormer's) plugs in at make_attention_score() alone.
#pragma once
#include <memory>
#include <optional>

#include "harmonic/core/random.h"
#include "harmonic/nn/linear.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

// What a query may not see. Every field is optional; all broadcast to the logits (B, H, Nq, Nk).
struct AttentionMask {
  // Query i sees keys j <= i + (Nk - Nq): bottom-right aligned, so a decoding step whose
  // keys include a cache of earlier positions sees all of them.
  bool causal = false;
  Tensor key_padding_mask{};  // bool (B, Nk), true = padding, never attended (Nk counts cached keys too)
  Tensor attn_mask{};         // bool broadcastable to (B, H, Nq, Nk), true = blocked
  Tensor additive_bias{};     // float broadcastable to (B, H, Nq, Nk): T5 relative bias, ALiBi
};

// Applies mask and bias to logits (B, H, Nq, Nk) and normalises over the keys. A row whose
// keys are all masked gives zeros (and zero gradient), never NaN.
Tensor masked_softmax(const Tensor& logits, const AttentionMask& mask = {});

// dropout(masked_softmax(logits)) @ v: logits (B, H, Nq, Nk), v (B, H, Nk, Dv) -> (B, H, Nq, Dv).
Tensor attend(const Tensor& logits, const Tensor& v, const AttentionMask& mask = {}, double dropout_p = 0.0,
              bool training = false, Generator* gen = nullptr);

// softmax(q k^T * scale + bias, masked) v, composed from matmul/masked_fill/softmax/dropout.
// q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv) -> (B, H, Nq, Dv); scale defaults to 1/sqrt(D).
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask = {},
                 double dropout_p = 0.0, bool training = false, Generator* gen = nullptr,
                 std::optional<double> scale = std::nullopt);

// Keys and values of the positions seen so far, per layer, for incremental decoding.
// Under no-grad (generation) append is amortised linear: the steps are written in place into
// buffers (B, H, capacity, D) whose capacity doubles when full, and k / v are views of their
// first length() positions (strided along H and B, not contiguous), so N one-token appends copy
// O(N) positions, reallocating O(log N) times. With grad enabled, append concatenates (k and v
// are then new tensors in the graph, O(t) per step): an in-place write would cut the graph.
// Earlier views stay valid: an append never overwrites positions below the old length.
struct KVCache {
  Tensor k;  // (B, H, t, D), undefined while empty
  Tensor v;  // (B, H, t, Dv)
  // Cross-attention: keys/values come from a fixed memory (the encoder output), so they are
  // projected once on the first call and reused afterwards instead of appended.
  bool is_static = false;

  int64_t length() const { return k.defined() ? k.size(2) : 0; }
  bool empty() const { return !k.defined(); }
  void append(const Tensor& k_new, const Tensor& v_new);  // (B, H, s, D), (B, H, s, Dv)
  void reset();
  // Positions the buffers hold (length() while unbuffered).
  int64_t capacity() const { return k_buffer.defined() ? k_buffer.size(2) : length(); }

  // The storage behind k and v (public only so that KVCache stays an aggregate, as
  // `KVCache{.is_static = true}`; written by append alone).
  Tensor k_buffer;            // (B, H, capacity, D), undefined until the first in-place append
  Tensor v_buffer;            // (B, H, capacity, Dv)
  int64_t reallocations = 0;  // buffer (re)allocations since the last reset
};

enum class AttentionKernel {
  DotProduct,  // q k^T * scale
  Fourier,     // FourierFormer generalized Fourier integral kernel
};

// The FourierFormer kernel's settings (nn::FourierScore, ops/fourier_attention.h).
struct FourierKernelOptions {
  double r_init = 2.0;     // initial bandwidth R (the paper: 2 for language, 1 for images)
  bool r_per_dim = false;  // one R per head dim instead of a scalar
  int64_t p = 4;           // the power (even in the paper; odd p is the signed kernel)
  double eps = 0.0;        // A = K / (sum_j K + eps): 0 is the exact normalisation, the authors' code has 1e-6
  bool log_r = false;      // learn log R (R = exp of the parameter) instead of R itself
};

struct MultiheadAttentionOptions {
  double dropout = 0.0;   // on the attention probabilities
  bool bias = true;       // in the four projections
  int64_t kdim = -1;      // width of `key` inputs (cross-attention); -1 = d_model
  int64_t vdim = -1;      // width of `value` inputs; -1 = d_model
  int64_t head_dim = -1;  // per-head width; -1 = d_model / n_heads (T5 sets d_kv)
  AttentionKernel kernel = AttentionKernel::DotProduct;
  std::optional<double> scale;  // logits scale; default 1/sqrt(head_dim)
  bool no_scale = false;        // T5: logits = q k^T (the scale is folded into the init)
  FourierKernelOptions fourier;  // the Fourier kernel's
};

// Maps per-head queries and keys to attention logits; the softmax over keys follows in attend().
class AttentionScore : public Module {
 public:
  using Module::Module;
  virtual Tensor forward(const Tensor& q, const Tensor& k) = 0;  // (B,H,Nq,D), (B,H,Nk,D) -> (B,H,Nq,Nk)
  // dropout(masked_softmax(forward(q, k))) v -> (B,H,Nq,Dv). A kernel with a fused op overrides this.
  virtual Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask, double dropout_p,
                        bool training, Generator* gen);
};

class DotProductScore : public AttentionScore {
 public:
  explicit DotProductScore(double scale) : AttentionScore("DotProductScore"), scale(scale) {}
  Tensor forward(const Tensor& q, const Tensor& k) override;
  // The fused ops/scaled_dot_product_attention.h (an additive_bias included, on the CPU and
  // CUDA alike) when `fused`, the dtype is float32/float64 and the mask has no attn_mask; the
  // composed path otherwise.
  Tensor attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask, double dropout_p,
                bool training, Generator* gen) override;
  double scale;
  bool fused = true;  // false: always the composed path (the specification, for tests and benches)
};

// The one place that knows every kernel.
std::shared_ptr<AttentionScore> make_attention_score(AttentionKernel kernel, int64_t head_dim,
                                                     const MultiheadAttentionOptions& options, Generator* gen);

// Children: q_proj, k_proj, v_proj (E or kdim/vdim -> H*D), out_proj (H*D -> E), score.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t d_model, int64_t n_heads, MultiheadAttentionOptions options = {},
                     Generator* gen = nullptr);

  // query (B, Nq, E), key (B, Nk, kdim), value (B, Nk, vdim) -> (B, Nq, E). With a cache, this
  // step's keys/values are appended (or, for a static cache, computed once) and the queries
  // attend over everything cached.
  Tensor forward(const Tensor& query, const Tensor& key, const Tensor& value, const AttentionMask& mask = {},
                 KVCache* cache = nullptr);
  // The per-head outputs before the heads are merged: (B, H, Nq, D) (for head studies).
  Tensor forward_heads(const Tensor& query, const Tensor& key, const Tensor& value, const AttentionMask& mask = {},
                       KVCache* cache = nullptr);

  int64_t d_model, n_heads, head_dim;
  MultiheadAttentionOptions options;
  std::shared_ptr<Linear> q_proj, k_proj, v_proj, out_proj;
  std::shared_ptr<AttentionScore> score;

 private:
  Tensor split_heads(const Tensor& x) const;  // (B, N, H*D) -> (B, H, N, D)
  Generator* gen_;
};

}  // namespace hm::nn
