// The stem table of ops/registry/sources.h.
#include "harmonic/ops/registry/sources.h"

#include "harmonic/core/error.h"

namespace hm::ops {

const std::vector<OpStem>& op_stems() {
  static const std::vector<OpStem> stems = {
      {"binary",
       {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "add_scalar", "sub_scalar", "mul_scalar",
        "div_scalar", "rsub", "add_", "mul_"}},
      {"unary",
       {"neg", "exp", "log", "log1p", "sqrt", "rsqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "silu",
        "softplus", "clamp", "square", "pow_scalar"}},
      {"compare_select",
       {"eq", "ne", "lt", "le", "gt", "ge", "eq_scalar", "lt_scalar", "gt_scalar", "logical_not", "where",
        "masked_fill"}},
      {"sum", {"sum", "mean", "sum_to"}},
      {"extrema", {"amax", "amin", "max", "min", "argmax", "argmin"}},
      {"moments", {"var", "std"}},
      {"norms", {"logsumexp", "norm"}},
      {"cumsum", {"cumsum"}},
      {"shape_views",
       {"reshape", "view", "flatten", "permute", "transpose", "expand", "broadcast_to", "squeeze", "unsqueeze",
        "slice", "narrow", "select"},
       false, false, false},
      {"shape_copies", {"cat", "stack", "split", "chunk", "flip", "pad", "tril", "triu"}},
      {"indexing", {"index_select", "index_add", "gather", "scatter_add", "one_hot"}},
      {"matmul", {"matmul", "linear"}},
      {"softmax", {"softmax", "log_softmax"}},
      {"cross_entropy", {"cross_entropy", "nll_loss"}},
      {"mse_loss", {"mse_loss"}},
      {"normalization",
       {"layer_norm", "add_layer_norm", "add_layer_norm_composed", "rms_norm", "add_rms_norm", "add_rms_norm_composed"}},
      {"embedding", {"embedding"}},
      {"dropout", {"dropout", "dropout_add", "dropout_add_composed"}},
      {"draw_categorical", {"draw_categorical"}},
      {"rnn_recurrence",
       {"rnn_tanh_recurrence", "rnn_tanh_recurrence_composed", "lstm_recurrence", "lstm_recurrence_composed",
        "gru_recurrence", "gru_recurrence_composed"}},
      {"scaled_dot_product_attention", {"scaled_dot_product_attention", "scaled_dot_product_attention_composed"}},
      {"fourier_head",
       {"fourier_head_log_pmf", "fourier_pdf", "fourier_cdf", "fourier_autocorrelation", "fourier_regularizer",
        "fourier_regularizer_composed"}},
      {"head_losses",
       {"fourier_nll", "fourier_nll_composed", "gmm_log_pmf", "gmm_log_pmf_composed", "gmm_nll", "gmm_nll_composed"}},
      {"fourier_attention", {"fourier_attention", "fourier_attention_logits_reference"}},
      {"fru_recurrence", {"fru_recurrence", "fru_recurrence_last"}},
      {"fft", {"rfft", "irfft", "fft", "ifft"}},
      {"stft", {"stft", "stft_frames", "log_spectrogram"}},
  };
  return stems;
}

const OpStem& stem_of(const std::string& op) {
  for (const OpStem& s : op_stems())
    for (const std::string& name : s.ops)
      if (name == op) return s;
  throw_error("op", "no op named '" + op + "' (harmonic op --list shows them)");
}

std::vector<std::string> source_lines(const OpStem& s) {
  const std::string& x = s.stem;
  return {
      "api:      ops/" + x + ".h",
      "autograd: ops/" + x + ".cpp (forward and backward)",
      "slots:    " + (s.slots ? "ops/" + x + "_kernels.h" : std::string("none (views share their input's storage)")),
      "cpu:      " + (s.cpu ? "ops/cpu/" + x + ".cpp" : std::string("none (views)")),
      "cuda:     " + (s.cuda ? "cuda/" + x + ".cu" : std::string("none (the composed form runs on CUDA)")),
      "tests:    tests/ops/test_" + x + ".cpp",
  };
}

}  // namespace hm::ops
