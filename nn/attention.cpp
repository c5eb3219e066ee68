#include "harmonic/nn/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/nn/fourier_score.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/ops.h"
#include "harmonic/ops/scaled_dot_product_attention.h"

namespace hm::nn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Blocked (i, j) where j > i + (Nk - Nq): bool (Nq, Nk).
Tensor causal_blocked(int64_t nq, int64_t nk, Device device) {
  Tensor rows = add(reshape(arange(nq), {nq, 1}), nk - nq);  // (Nq, 1)
  Tensor cols = reshape(arange(nk), {1, nk});                                     // (1, Nk)
  return gt(cols, rows).to(device);
}

}  // namespace

Tensor masked_softmax(const Tensor& logits_arg, const AttentionMask& mask) {
  const Tensor logits = autocast_widen(logits_arg);  // bfloat16 under autocast: computed in float32
  constexpr const char* fn = "attention";
  HM_CHECK(logits.defined() && logits.dim() == 4 && is_floating(logits.dtype()), fn,
           "logits must be a float (B, H, Nq, Nk) tensor, got {}", logits.desc());
  const Shape& s = logits.shape();
  const int64_t B = s[0], Nq = s[2], Nk = s[3];
  Tensor x = logits;  // (B, H, Nq, Nk)
  if (mask.additive_bias.defined()) {
    const Tensor& b = mask.additive_bias;
    HM_CHECK(b.dtype() == logits.dtype(), fn, "additive_bias {} must have the logits' dtype {}", b.desc(),
             dtype_name(logits.dtype()));
    HM_CHECK(broadcasts_to(b.shape(), s), fn, "additive_bias {} does not broadcast to the logits {}", str(b.shape()),
             str(s));
    x = add(x, b);
  }
  bool may_block_rows = mask.additive_bias.defined();  // a bias may hold -inf
  if (mask.causal) {
    x = masked_fill(x, causal_blocked(Nq, Nk, x.device()), kNegInf);
    may_block_rows |= Nq > Nk;
  }
  if (mask.key_padding_mask.defined()) {
    const Tensor& m = mask.key_padding_mask;
    HM_CHECK((m.dtype() == DType::Bool && m.shape() == Shape{B, Nk}), fn,
             "key_padding_mask must be bool (B, Nk) = ({}, {}), got {}", B, Nk, m.desc());
    x = masked_fill(x, reshape(m, {B, 1, 1, Nk}), kNegInf);
    may_block_rows = true;
  }
  if (mask.attn_mask.defined()) {
    const Tensor& m = mask.attn_mask;
    HM_CHECK(m.dtype() == DType::Bool && broadcasts_to(m.shape(), s), fn,
             "attn_mask must be bool and broadcast to the logits {}, got {}", str(s), m.desc());
    x = masked_fill(x, m, kNegInf);
    may_block_rows = true;
  }
  if (!may_block_rows) return softmax(x, -1);

  // A row with every key blocked would be softmax(-inf, ...) = NaN. Give it finite logits
  // (so the softmax backward stays finite) and zero its probabilities afterwards.
  Tensor dead;  // bool (B, H, Nq, 1)
  {
    NoGradGuard no_grad;
    dead = eq(amax(x.detach(), {-1}, true), kNegInf);
  }
  bool any_dead = false;
  for (double d : dead.to(Device::cpu()).to_vector()) any_dead |= d != 0;
  if (!any_dead) return softmax(x, -1);
  return masked_fill(softmax(masked_fill(x, dead, 0.0), -1), dead, 0.0);
}

Tensor attend(const Tensor& logits, const Tensor& v, const AttentionMask& mask, double dropout_p, bool training,
              Generator* gen) {
  HM_CHECK(v.defined() && v.dim() == 4, "attention", "v must be (B, H, Nk, Dv), got {}", v.desc());
  HM_CHECK(logits.dim() == 4 && v.size(2) == logits.size(3), "attention", "logits {} and v {} disagree on Nk",
           str(logits.shape()), str(v.shape()));
  Tensor p = masked_softmax(logits, mask);  // (B, H, Nq, Nk)
  if (training && dropout_p > 0) p = dropout(p, dropout_p, true, gen);
  return matmul(p, v);  // (B, H, Nq, Dv)
}

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask, double dropout_p,
                 bool training, Generator* gen, std::optional<double> scale) {
  check(q.defined() && k.defined() && v.defined(), "attention", "q, k and v must be defined");
  HM_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "attention",
           "expected q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), got {}, {}, {}", str(q.shape()),
           str(k.shape()), str(v.shape()));
  HM_CHECK(q.size(3) == k.size(3) && k.size(2) == v.size(2) && q.size(0) == k.size(0) && k.size(0) == v.size(0) &&
               q.size(1) == k.size(1) && k.size(1) == v.size(1),
           "attention", "incompatible q {}, k {}, v {}", str(q.shape()), str(k.shape()), str(v.shape()));
  HM_CHECK(q.dtype() == k.dtype() && k.dtype() == v.dtype(), "attention", "dtypes differ: q {}, k {}, v {}", q.desc(),
           k.desc(), v.desc());
  DotProductScore score(scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(3)))));
  return attend(score.forward(q, k), v, mask, dropout_p, training, gen);
}

void KVCache::append(const Tensor& k_new, const Tensor& v_new) {
  HM_CHECK(k_new.dim() == 4 && v_new.dim() == 4 && k_new.size(2) == v_new.size(2), "KVCache::append",
           "expected k (B, H, s, D) and v (B, H, s, Dv), got {} and {}", str(k_new.shape()), str(v_new.shape()));
  if (empty()) {  // the first step is kept as given (a static cache never grows past it)
    // A static cache is read at every later step: store it contiguous once, or each attention
    // call would copy the split-heads view of the whole memory again (41% of a forecast).
    k = is_static ? k_new.contiguous() : k_new, v = is_static ? v_new.contiguous() : v_new;
    return;
  }
  auto same_but_time = [](const Tensor& a, const Tensor& b) {
    return a.size(0) == b.size(0) && a.size(1) == b.size(1) && a.size(3) == b.size(3);
  };
  HM_CHECK(same_but_time(k, k_new) && same_but_time(v, v_new), "KVCache::append",
           "cached k {} / v {} and new k {} / v {} differ outside the time dim", str(k.shape()), str(v.shape()),
           str(k_new.shape()), str(v_new.shape()));
  HM_CHECK(k.dtype() == k_new.dtype() && v.dtype() == v_new.dtype() && k.device() == k_new.device() &&
               v.device() == v_new.device(),
           "KVCache::append", "cached k {} / v {} and new k {} / v {} differ in dtype or device", k.desc(), v.desc(),
           k_new.desc(), v_new.desc());
  if (grad_enabled()) {  // keep the graph: concatenate, and drop the buffers
    k = cat({k, k_new}, 2), v = cat({v, v_new}, 2);
    k_buffer = Tensor(), v_buffer = Tensor();
    return;
  }
  const int64_t t = length(), s = k_new.size(2), need = t + s;
  if (need > capacity() || !k_buffer.defined()) {  // grow to max(2 capacity, need), copying the t cached positions
    const int64_t cap = std::max(2 * capacity(), need);
    auto grow = [&](const Tensor& old) {
      Tensor buf =
          hm::empty({old.size(0), old.size(1), cap, old.size(3)}, {.dtype = old.dtype(), .device = old.device()});
      narrow(buf, 2, 0, t).copy_(old);
      return buf;
    };
    k_buffer = grow(k), v_buffer = grow(v);
    ++reallocations;
  }
  narrow(k_buffer, 2, t, s).copy_(k_new);
  narrow(v_buffer, 2, t, s).copy_(v_new);
  k = narrow(k_buffer, 2, 0, need), v = narrow(v_buffer, 2, 0, need);
}

void KVCache::reset() {
  k = Tensor(), v = Tensor();
  k_buffer = Tensor(), v_buffer = Tensor();
  reallocations = 0;
}

Tensor AttentionScore::attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask,
                              double dropout_p, bool training, Generator* gen) {
  return nn::attend(forward(q, k), v, mask, dropout_p, training, gen);
}

Tensor DotProductScore::forward(const Tensor& q, const Tensor& k) {
  Tensor logits = matmul(q, transpose(k, -2, -1));  // (B, H, Nq, Nk)
  return scale == 1.0 ? logits : mul(logits, scale);
}

Tensor DotProductScore::attend(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask,
                               double dropout_p, bool training, Generator* gen) {
  const bool fusable =
      fused && !mask.attn_mask.defined() && q.defined() && (q.dtype() == DType::Float32 || q.dtype() == DType::Float64);
  if (!fusable) return AttentionScore::attend(q, k, v, mask, dropout_p, training, gen);
  return scaled_dot_product_attention(
      q, k, v, {.causal = mask.causal, .key_padding_mask = mask.key_padding_mask, .additive_bias = mask.additive_bias},
      dropout_p, training, gen, scale);
}

std::shared_ptr<AttentionScore> make_attention_score(AttentionKernel kernel, int64_t head_dim,
                                                     const MultiheadAttentionOptions& options, Generator* gen) {
  switch (kernel) {
    case AttentionKernel::DotProduct: {
      double scale = options.no_scale ? 1.0 : options.scale.value_or(1.0 / std::sqrt(static_cast<double>(head_dim)));
      return std::make_shared<DotProductScore>(scale);
    }
    case AttentionKernel::Fourier:  // no 1/sqrt(D): R is the bandwidth
      return std::make_shared<FourierScore>(head_dim, options.fourier);
  }
  throw_error("MultiheadAttention", fmt::format("unknown attention kernel {}", static_cast<int>(kernel)));
}

MultiheadAttention::MultiheadAttention(int64_t d_model, int64_t n_heads, MultiheadAttentionOptions options,
                                       Generator* gen)
    : Module("MultiheadAttention"), d_model(d_model), n_heads(n_heads), options(options), gen_(gen) {
  check(d_model > 0 && n_heads > 0, "MultiheadAttention", "d_model {} and n_heads {} must be positive", d_model,
        n_heads);
  check(options.head_dim > 0 || d_model % n_heads == 0, "MultiheadAttention",
        "d_model {} is not divisible by n_heads {} (set head_dim)", d_model, n_heads);
  check(options.dropout >= 0 && options.dropout < 1, "MultiheadAttention", "dropout {} must be in [0, 1)",
        options.dropout);
  head_dim = options.head_dim > 0 ? options.head_dim : d_model / n_heads;
  const int64_t inner = n_heads * head_dim;
  const int64_t kdim = options.kdim > 0 ? options.kdim : d_model;
  const int64_t vdim = options.vdim > 0 ? options.vdim : d_model;
  register_module("q_proj", q_proj, std::make_shared<Linear>(d_model, inner, options.bias, gen));
  register_module("k_proj", k_proj, std::make_shared<Linear>(kdim, inner, options.bias, gen));
  register_module("v_proj", v_proj, std::make_shared<Linear>(vdim, inner, options.bias, gen));
  register_module("out_proj", out_proj, std::make_shared<Linear>(inner, d_model, options.bias, gen));
  score = register_module("score", make_attention_score(options.kernel, head_dim, options, gen));
}

Tensor MultiheadAttention::split_heads(const Tensor& x) const {
  return permute(reshape(x, {x.size(0), x.size(1), n_heads, head_dim}), {0, 2, 1, 3});  // (B, H, N, D)
}

Tensor MultiheadAttention::forward_heads(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const AttentionMask& mask, KVCache* cache) {
  HM_CHECK(query.defined() && query.dim() == 3 && query.size(2) == d_model, "MultiheadAttention",
           "query must be (B, Nq, {}), got {}", d_model, query.desc());
  Tensor q = split_heads(q_proj->forward(query));  // (B, H, Nq, D)
  Tensor k, v;                                     // (B, H, Nk, D)
  if (cache && cache->is_static && !cache->empty()) {
    k = cache->k, v = cache->v;
  } else {
    HM_CHECK(key.defined() && value.defined() && key.dim() == 3 && value.dim() == 3 &&
                 key.size(2) == k_proj->in_features && value.size(2) == v_proj->in_features &&
                 key.size(0) == query.size(0) && value.size(0) == query.size(0) && key.size(1) == value.size(1),
             "MultiheadAttention", "query {}, key {}, value {} do not fit (B, Nq, {}), (B, Nk, {}), (B, Nk, {})",
             str(query.shape()), key.defined() ? str(key.shape()) : "undefined",
             value.defined() ? str(value.shape()) : "undefined", d_model, k_proj->in_features, v_proj->in_features);
    k = split_heads(k_proj->forward(key));
    v = split_heads(v_proj->forward(value));
    if (cache) {
      cache->append(k, v);
      k = cache->k, v = cache->v;
    }
  }
  return score->attend(q, k, v, mask, options.dropout, is_training(), gen_);  // (B, H, Nq, Dv)
}

Tensor MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const AttentionMask& mask, KVCache* cache) {
  Tensor heads = forward_heads(query, key, value, mask, cache);  // (B, H, Nq, D)
  Tensor merged = reshape(permute(heads, {0, 2, 1, 3}), {query.size(0), query.size(1), n_heads * head_dim});
  return out_proj->forward(merged);  // (B, Nq, E)
}

}  // namespace hm::nn
