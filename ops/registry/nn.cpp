// Op table entries for ops/indexing.h, ops/matmul.h, ops/nn_functional.h, ops/rnn_recurrence.h and
// ops/scaled_dot_product_attention.h. Attribute names
// follow PyTorch (ignore_index, label_smoothing, reduction, normalized_shape, eps, ...).
#include <algorithm>
#include <optional>

#include "harmonic/core/checked_math.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/indexing.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/registry/registry.h"
#include "harmonic/ops/rnn_recurrence.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::ops {
namespace {

using V = const std::vector<Tensor>&;
using A = const Attrs&;

Reduction reduction(A a) {
  std::string s = a.s("reduction");
  check(s == "mean" || s == "sum" || s == "none", "op loss",
        "attribute 'reduction' must be \"mean\", \"sum\" or \"none\", got \"{}\"", s);
  return s == "mean" ? Reduction::Mean : s == "sum" ? Reduction::Sum : Reduction::None;
}

CrossEntropyOptions class_loss_options(A a, bool smoothing) {
  return {.ignore_index = a.i("ignore_index"),
          .label_smoothing = smoothing ? a.f("label_smoothing") : 0.0,
          .class_dim = a.i("class_dim"),
          .reduction = reduction(a)};
}

DType dtype_attr(A a) {
  std::string s = a.s("dtype");
  if (s == "int64") return DType::Int64;
  if (s == "float32") return DType::Float32;
  if (s == "float64") return DType::Float64;
  throw_error("op one_hot",
              fmt::format("attribute 'dtype' must be \"int64\", \"float32\" or \"float64\", got \"{}\"", s));
}

// LSTM's outputs (T, B, H) with c_n appended as row T: (T+1, B, H).
Tensor with_c_n(const RecurrenceOutput& r) { return cat({r.output, unsqueeze(r.c_n, 0)}, 0); }

// layer_norm over the trailing dims given by normalized_shape (null: the last dim).
Tensor layer_norm_op(V x, A a) {
  Shape normalized = a.is_null("normalized_shape") ? Shape{x[0].size(-1)} : a.shape("normalized_shape");
  return layer_norm(x[0], normalized, x[1], x[2], a.f("eps"));
}

// one_hot with num_classes null infers max(index) + 1 like PyTorch's -1.
Tensor one_hot_op(V x, A a) {
  int64_t classes = a.is_null("num_classes") ? -1 : a.i("num_classes");
  if (classes < 0) {
    auto v = x[0].to_vector_as<int64_t>();
    classes = v.empty() ? 0 : checked_add(*std::max_element(v.begin(), v.end()), 1, "one_hot");
  }
  return one_hot(x[0], classes, dtype_attr(a));
}

// Bench index bounds: the indexed dim of x, the class dim, the embedding rows, the classes.
int64_t along_dim(V x, A a) { return x[0].size(a.i("dim")); }
int64_t classes(V x, A a) { return x[0].dim() == 1 ? x[0].size(0) : x[0].size(a.i("class_dim")); }
int64_t rows(V x, A) { return x[0].size(0); }
int64_t num_classes(V, A a) { return a.is_null("num_classes") ? 2 : a.i("num_classes"); }

// Dropout on the attention weights draws from a generator seeded by the "seed" attribute, so
// one seed gives one mask (finite differences, and the fused op and its twin, see the same).
template <bool Composed>
Tensor sdpa_op(V x, A a) {
  Generator gen(static_cast<uint64_t>(a.i("seed")));
  FusedAttentionMask mask{.causal = a.b("causal"), .key_padding_mask = x[3], .additive_bias = x[4]};
  std::optional<double> scale;
  if (!a.is_null("scale")) scale = a.f("scale");
  if constexpr (Composed)
    return detail::scaled_dot_product_attention_composed(x[0], x[1], x[2], mask, a.f("dropout_p"), a.b("training"),
                                                         &gen, scale);
  else
    return scaled_dot_product_attention(x[0], x[1], x[2], mask, a.f("dropout_p"), a.b("training"), &gen, scale);
}

}  // namespace

void add_nn_ops(std::vector<OpSpec>& t) {
  FamilyTable I{t, "indexing"};
  I("index_select", "x #index", R"({"dim": 0})", [](V x, A a) { return index_select(x[0], a.i("dim"), x[1]); })
      .ex("5x4,3")
      .bound(along_dim)
      .accepts(kProbeIntDtype)
      .bad("5x4,3x2");
  I("index_add", "x #index src", R"({"dim": 0})", [](V x, A a) { return index_add(x[0], a.i("dim"), x[1], x[2]); })
      .ex("5x4,3,3x4")
      .bound(along_dim);
  I("gather", "x #index", R"({"dim": 0})", [](V x, A a) { return gather(x[0], a.i("dim"), x[1]); })
      .ex("5x4,2x4")
      .bound(along_dim)
      .accepts(kProbeIntDtype);
  I("scatter_add", "x #index src", R"({"dim": 0})", [](V x, A a) { return scatter_add(x[0], a.i("dim"), x[1], x[2]); })
      .ex("5x4,2x4,2x4")
      .bound(along_dim)
      .bad("5x4,2x5,2x5");
  I("one_hot", "#index", R"({"num_classes": null, "dtype": "int64"})", one_hot_op)
      .ex("6", R"({"num_classes": 5})")
      .bound(num_classes);

  FamilyTable L{t, "linalg"};
  L("matmul", "a b", "{}", [](V x, A) { return matmul(x[0], x[1]); }).ex("2x3x4,4x5").bad("2x3x4,5x5");
  L("linear", "x w b?", "{}", [](V x, A) { return linear(x[0], x[1], x[2]); }).ex("3x4,5x4,5");

  FamilyTable N{t, "nn"};
  N("softmax", "x", R"({"dim": -1})", [](V x, A a) { return softmax(x[0], a.i("dim")); });
  N("log_softmax", "x", R"({"dim": -1})", [](V x, A a) { return log_softmax(x[0], a.i("dim")); });
  N("cross_entropy", "x #target",
    R"({"ignore_index": -100, "label_smoothing": 0.0, "class_dim": 1, "reduction": "mean"})",
    [](V x, A a) { return cross_entropy(x[0], x[1], class_loss_options(a, true)); })
      .ex("3x5,3")
      .bound(classes);
  N("nll_loss", "x #target", R"({"ignore_index": -100, "class_dim": 1, "reduction": "mean"})",
    [](V x, A a) { return nll_loss(x[0], x[1], class_loss_options(a, false)); })
      .ex("3x5,3")
      .bound(classes);
  N("mse_loss", "x target", R"({"reduction": "mean"})", [](V x, A a) { return mse_loss(x[0], x[1], reduction(a)); });
  N("layer_norm", "x w? b?", R"({"normalized_shape": null, "eps": 1e-5})", layer_norm_op).ex("3x4,4,4");
  // Both outputs in one: (..., 2 D) = [x + r | layer_norm(x + r)].
  N("add_layer_norm", "x r w? b?", R"({"eps": 1e-5})",
    [](V x, A a) {
      auto [sum, out] = add_layer_norm(x[0], x[1], {x[0].size(-1)}, x[2], x[3], a.f("eps"));
      return cat({sum, out}, -1);
    })
      .ex("3x4,3x4,4,4")
      .twin("add_layer_norm_composed");
  N("add_layer_norm_composed", "x r w? b?", R"({"eps": 1e-5})",
    [](V x, A a) {
      auto [sum, out] = detail::add_layer_norm_composed(x[0], x[1], {x[0].size(-1)}, x[2], x[3], a.f("eps"));
      return cat({sum, out}, -1);
    })
      .ex("3x4,3x4,4,4")
      .fn("add_layer_norm");
  N("rms_norm", "x w?", R"({"eps": 1e-6})", [](V x, A a) { return rms_norm(x[0], x[1], a.f("eps")); }).ex("3x4,4");
  N("add_rms_norm", "x r w?", R"({"eps": 1e-6})",
    [](V x, A a) {
      auto [sum, out] = add_rms_norm(x[0], x[1], x[2], a.f("eps"));
      return cat({sum, out}, -1);
    })
      .ex("3x4,3x4,4")
      .twin("add_rms_norm_composed");
  N("add_rms_norm_composed", "x r w?", R"({"eps": 1e-6})",
    [](V x, A a) {
      auto [sum, out] = detail::add_rms_norm_composed(x[0], x[1], x[2], a.f("eps"));
      return cat({sum, out}, -1);
    })
      .ex("3x4,3x4,4")
      .fn("add_rms_norm");
  N("embedding", "w #indices", R"({"padding_idx": -1})",
    [](V x, A a) { return embedding(x[0], x[1], a.i("padding_idx")); })
      .ex("6x3,2x4")
      .bound(rows)
      .bad("6,2x4");
  // Harmonic's Philox stream: same seed, same mask (so gradcheck sees one mask on every call);
  // it does not match PyTorch's generator.
  N("dropout", "x", R"({"p": 0.5, "training": true, "seed": 0})", [](V x, A a) {
    Generator gen(static_cast<uint64_t>(a.i("seed")));
    return dropout(x[0], a.f("p"), a.b("training"), &gen);
  }).ex("3x4", R"({"p": 0.25})");
  N("dropout_add", "x r", R"({"p": 0.5, "training": true, "seed": 0})",
    [](V x, A a) {
      Generator gen(static_cast<uint64_t>(a.i("seed")));
      return dropout_add(x[0], x[1], a.f("p"), a.b("training"), &gen);
    })
      .ex("3x4,3x4", R"({"p": 0.25})")
      .twin("dropout_add_composed");
  N("dropout_add_composed", "x r", R"({"p": 0.5, "training": true, "seed": 0})",
    [](V x, A a) {
      Generator gen(static_cast<uint64_t>(a.i("seed")));
      return detail::dropout_add_composed(x[0], x[1], a.f("p"), a.b("training"), &gen);
    })
      .ex("3x4,3x4", R"({"p": 0.25})")
      .fn("dropout_add");

  // An index out, nothing to differentiate; u a uniform per row.
  N("draw_categorical", "~weights ~u", R"({"top_k": 0})",
    [](V x, A a) { return draw_categorical(x[0], x[1], a.i("top_k")).index; })
      .ex("3x5,3", R"({"top_k": 2})")
      .domain("weights", Domain::Positive)
      .domain("u", Domain::Fraction)
      .bad("3x5,4");

  // The fused recurrences and their composed twins: the entry's output is the (T, B, H) outputs;
  // LSTM's appends c_n as row T, so every differentiable path reaches the one output.
  N("rnn_tanh_recurrence", "xw w_hh b_hh? h0?", "{}",
    [](V x, A) { return rnn_tanh_recurrence(x[0], x[1], x[2], x[3]).output; })
      .ex("3x2x4,4x4,4,2x4")
      .twin("rnn_tanh_recurrence_composed");
  N("rnn_tanh_recurrence_composed", "xw w_hh b_hh? h0?", "{}",
    [](V x, A) { return detail::rnn_tanh_recurrence_composed(x[0], x[1], x[2], x[3]).output; })
      .ex("3x2x4,4x4,4,2x4")
      .fn("rnn_tanh_recurrence");
  N("lstm_recurrence", "xw w_hh b_hh? h0? c0?", "{}",
    [](V x, A) { return with_c_n(lstm_recurrence(x[0], x[1], x[2], x[3], x[4])); })
      .ex("3x2x12,12x3,12,2x3,2x3")
      .twin("lstm_recurrence_composed");
  N("lstm_recurrence_composed", "xw w_hh b_hh? h0? c0?", "{}",
    [](V x, A) { return with_c_n(detail::lstm_recurrence_composed(x[0], x[1], x[2], x[3], x[4])); })
      .ex("3x2x12,12x3,12,2x3,2x3")
      .fn("lstm_recurrence");
  N("gru_recurrence", "xw w_hh b_hh? h0?", "{}", [](V x, A) { return gru_recurrence(x[0], x[1], x[2], x[3]).output; })
      .ex("3x2x9,9x3,9,2x3")
      .twin("gru_recurrence_composed");
  N("gru_recurrence_composed", "xw w_hh b_hh? h0?", "{}",
    [](V x, A) { return detail::gru_recurrence_composed(x[0], x[1], x[2], x[3]).output; })
      .ex("3x2x9,9x3,9,2x3")
      .fn("gru_recurrence");
  // Fused softmax attention: q (B, H, Nq, D), k (B, H, Nk, D), v (B, H, Nk, Dv), pad (B, Nk),
  // bias broadcastable to (B, H, Nq, Nk); Nq < Nk exercises the bottom-right aligned causal
  // mask of a decoding step, the (1, H, Nq, Nk) bias T5's relative position bias.
  const char* sdpa = R"({"causal": false, "dropout_p": 0.0, "training": false, "seed": 0, "scale": null})";
  N("scaled_dot_product_attention", "q k v !key_padding_mask? additive_bias?", sdpa, sdpa_op<false>)
      .ex("1x2x3x2,1x2x4x2,1x2x4x3,1x4", R"({"causal": true, "dropout_p": 0.25, "training": true})")
      .ex("2x2x3x2,2x2x4x2,2x2x4x3,2x4,1x2x3x4", R"({"causal": true})")
      .bad("1x2x3x2,1x2x4x3,1x2x4x3")
      .bad("1x2x3x2,1x2x4x2,1x2x4x3,1x4,1x2x4x3")
      .twin("scaled_dot_product_attention_composed");
  N("scaled_dot_product_attention_composed", "q k v !key_padding_mask? additive_bias?", sdpa, sdpa_op<true>)
      .ex("1x2x3x2,1x2x4x2,1x2x4x3,1x4", R"({"causal": true, "dropout_p": 0.25, "training": true})")
      .ex("2x2x3x2,2x2x4x2,2x2x4x3,2x4,1x2x3x4", R"({"causal": true})")
      .bad("1x2x3x2,1x2x4x3,1x2x4x3")
      .bad("1x2x3x2,1x2x4x2,1x2x4x3,1x4,1x2x4x3")
      .fn("scaled_dot_product_attention");
}

}  // namespace hm::ops
