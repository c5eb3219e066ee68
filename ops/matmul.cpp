// matmul and linear on the strided GEMM slot. Operands go to BLAS as views: a transposed
// contiguous matrix is passed with a trans flag, broadcast batch dims get stride 0, and
// leading dims that fold into rows make one big GEMM. Copies happen only for layouts BLAS
// cannot express (e.g. both strides of a matrix != 1).
#include <optional>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise_common.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/reduce.h"

namespace hm {
namespace {

using detail::contiguous_nograd;

using Grads = std::vector<Tensor>;

// How BLAS reads a (rows, cols) matrix with strides (sr, sc): row-major as stored, or as
// the transpose of a row-major (cols, rows) matrix. nullopt when neither stride is 1.
struct BlasLayout {
  bool trans;
  int64_t ld;
};
std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if ((sc == 1 || cols <= 1) && (rows <= 1 || sr >= std::max<int64_t>(cols, 1)))
    return BlasLayout{false, rows <= 1 ? std::max<int64_t>(cols, 1) : sr};
  if ((sr == 1 || rows <= 1) && (cols <= 1 || sc >= std::max<int64_t>(rows, 1)))
    return BlasLayout{true, cols <= 1 ? std::max<int64_t>(rows, 1) : sc};
  return std::nullopt;
}

std::optional<BlasLayout> matrix_layout(const Tensor& t) {
  const int64_t d = t.dim();
  return blas_layout(t.shape()[d - 2], t.shape()[d - 1], t.strides()[d - 2], t.strides()[d - 1]);
}

// A view of t with other shape/strides (no autograd: the caller records the whole op).
Tensor restride(const Tensor& t, Shape shape, Strides strides) {
  return Tensor::view_of(t.storage(), std::move(shape), std::move(strides), t.offset(), t.dtype());
}

// t with its last two dims swapped.
Tensor mT(const Tensor& t) {
  Shape s = t.shape();
  Strides st = t.strides();
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  std::swap(st[st.size() - 1], st[st.size() - 2]);
  return restride(t, s, st);
}

// t whose last two dims BLAS can read directly (copies only when it must).
Tensor blas_ready(const Tensor& t) { return matrix_layout(t) ? t : contiguous_nograd(t); }

// (..., c) -> (rows, c) when all leading dims merge into one row stride; nullopt otherwise.
std::optional<Tensor> fold_rows(const Tensor& t) {
  const int64_t d = t.dim();
  int64_t rows = 1, row_stride = 0;
  bool first = true;
  for (int64_t i = d - 2; i >= 0; --i) {
    int64_t size = t.shape()[i];
    if (size == 1) continue;
    if (first) {
      row_stride = t.strides()[i];
      first = false;
    } else if (t.strides()[i] != row_stride * rows) {
      return std::nullopt;
    }
    rows *= size;
  }
  if (first) row_stride = t.shape()[d - 1];  // a single row: any stride will do
  return restride(t, {rows, t.shape()[d - 1]}, {row_stride, t.strides()[d - 1]});
}

// Fills the A/B fields of desc from BLAS-ready matrices a (m, k) and b (k, n).
void set_operands(GemmDesc& desc, const Tensor& a, const Tensor& b) {
  BlasLayout la = *matrix_layout(a), lb = *matrix_layout(b);
  desc.dtype = a.dtype();
  desc.m = a.size(-2), desc.k = a.size(-1), desc.n = b.size(-1);
  desc.trans_a = la.trans, desc.lda = la.ld, desc.a = a.raw_data();
  desc.trans_b = lb.trans, desc.ldb = lb.ld, desc.b = b.raw_data();
}

// Products of bfloat16 operands (autocast) accumulate in float32 and are written as float32,
// or as bfloat16 when bf16_c (autocast's bfloat16 products).
DType result_dtype(const Tensor& a, bool bf16_c) {
  return a.dtype() == DType::BFloat16 ? (bf16_c ? DType::BFloat16 : DType::Float32) : a.dtype();
}

// Autocast (ops/autocast.h): float32 CUDA operands go to the GEMM as bfloat16 copies, and
// bfloat16 ones (autocast's products) as they are.
bool autocasting(const Tensor& a) {
  return (a.device().is_cuda() || autocast_cpu_for_tests()) &&
         (a.dtype() == DType::Float32 || a.dtype() == DType::BFloat16) && autocast_dtype() == DType::BFloat16;
}
Tensor cast_nograd(const Tensor& t, bool cast) {
  if (!cast || !t.defined() || t.dtype() == DType::BFloat16) return t;
  NoGradGuard guard;
  return t.to(DType::BFloat16);
}
// An incoming float32 gradient meets saved bfloat16 operands as bfloat16 too.
Tensor like_operand(const Tensor& g, const Tensor& operand) {
  return cast_nograd(g, operand.dtype() == DType::BFloat16 && g.dtype() != DType::BFloat16);
}

// out (m, n) = a (m, k) @ b (k, n) + bias, all 2-d; out is allocated contiguous.
Tensor mm2(const Tensor& a_in, const Tensor& b_in, const Tensor& bias = {}, bool bf16_c = false) {
  Tensor a = blas_ready(a_in), b = blas_ready(b_in);
  Tensor out = Tensor::empty({a.size(0), b.size(1)}, result_dtype(a, bf16_c), a.device());
  GemmDesc desc;
  set_operands(desc, a, b);
  desc.bf16_c = out.dtype() == DType::BFloat16;
  desc.c = out.raw_data(), desc.ldc = std::max<int64_t>(desc.n, 1);
  const Tensor bias_c = bias.defined() ? contiguous_nograd(bias) : Tensor();  // alive until the GEMM has run
  if (bias_c.defined()) desc.bias = bias_c.raw_data();
  gemm_kernel(a.device(), desc);
  return out;
}

// (..., n, k) @ (..., k, m) -> contiguous (batch..., n, m) with broadcast batch dims; no autograd.
Tensor matmul_nd(const Tensor& a_in, const Tensor& b_in, bool bf16_c = false) {
  const int64_t n = a_in.size(-2), m = b_in.size(-1);
  // A 2-d right operand: fold every leading dim of a into rows, one GEMM.
  if (b_in.dim() == 2) {
    if (auto af = fold_rows(a_in); af && matrix_layout(*af)) {
      Shape shape = a_in.shape();
      shape.back() = m;
      Tensor out = mm2(*af, b_in, {}, bf16_c);
      return restride(out, shape, contiguous_strides(shape));
    }
  }
  Tensor a = blas_ready(a_in), b = blas_ready(b_in);
  Shape batch_a(a.shape().begin(), a.shape().end() - 2), batch_b(b.shape().begin(), b.shape().end() - 2);
  Strides strides_a(a.strides().begin(), a.strides().end() - 2), strides_b(b.strides().begin(), b.strides().end() - 2);
  Shape batch = broadcast_shapes(batch_a, batch_b, "matmul");
  Strides ea = broadcast_strides(batch_a, strides_a, batch), eb = broadcast_strides(batch_b, strides_b, batch);
  Shape out_shape = batch;
  out_shape.push_back(n), out_shape.push_back(m);
  Tensor out = Tensor::empty(out_shape, result_dtype(a, bf16_c), a.device());
  Strides ec(out.strides().begin(), out.strides().end() - 2);
  GemmDesc desc;
  set_operands(desc, a, b);
  desc.bf16_c = out.dtype() == DType::BFloat16;
  desc.c = out.raw_data(), desc.ldc = std::max<int64_t>(m, 1);
  // Batch dims: drop size-1 dims, merge neighbours that are contiguous for all three operands.
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i] == 1) continue;
    if (!desc.batch.empty() && desc.batch_a.back() == ea[i] * batch[i] && desc.batch_b.back() == eb[i] * batch[i] &&
        desc.batch_c.back() == ec[i] * batch[i]) {
      desc.batch.back() *= batch[i];
      desc.batch_a.back() = ea[i], desc.batch_b.back() = eb[i], desc.batch_c.back() = ec[i];
      continue;
    }
    desc.batch.push_back(batch[i]);
    desc.batch_a.push_back(ea[i]), desc.batch_b.push_back(eb[i]), desc.batch_c.push_back(ec[i]);
  }
  gemm_kernel(a.device(), desc);
  return out;
}

void check_operands(const Tensor& a, const Tensor& b, std::string_view fn) {
  check(a.defined() && b.defined(), fn, "undefined operand");
  HM_CHECK(a.device() == b.device(), fn, "operands on different devices: {} and {}", a.desc(), b.desc());
  if (autocasting(a) && autocasting(b)) return;  // float32 and bfloat16 operands in any mix
  HM_CHECK(a.dtype() == b.dtype(), fn, "dtype mismatch: {} and {}", a.desc(), b.desc());
  HM_CHECK(a.dtype() == DType::Float32 || a.dtype() == DType::Float64, fn,
           "expected float32 or float64 operands{}, got {}", a.device().is_cuda() ? " (bfloat16 under autocast)" : "",
           a.desc());
}

// Under autocast with bfloat16 products, the GEMM's output, and the gradient of each
// bfloat16 input, are bfloat16.
bool bf16_products(bool cast) { return cast && autocast_products() == AutocastProducts::BFloat16; }

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  check_operands(a_in, b_in, "matmul");
  const bool cast = autocasting(a_in) && autocasting(b_in);
  const Tensor a = cast_nograd(a_in, cast), b = cast_nograd(b_in, cast);
  HM_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul", "both operands need at least 1 dim, got shapes {} and {}",
           str(a.shape()), str(b.shape()));
  // 1-d operands become a row (k) -> (1, k) or a column (k) -> (k, 1), squeezed from the result.
  const bool row = a.dim() == 1, col = b.dim() == 1;
  Tensor a2 = row ? restride(a, {1, a.size(0)}, {a.size(0) * a.strides()[0], a.strides()[0]}) : a;
  Tensor b2 = col ? restride(b, {b.size(0), 1}, {b.strides()[0], 1}) : b;
  HM_CHECK(a2.size(-1) == b2.size(-2), "matmul", "shapes {} and {} cannot be multiplied ({} vs {})", str(a.shape()),
           str(b.shape()), a2.size(-1), b2.size(-2));
  if (a2.dim() > 2 || b2.dim() > 2) {  // validates the batch dims with a readable message
    Shape ba(a2.shape().begin(), a2.shape().end() - 2), bb(b2.shape().begin(), b2.shape().end() - 2);
    try {
      broadcast_shapes(ba, bb, "matmul");
    } catch (const Error&) {
      throw_error("matmul", fmt::format("batch dims of shapes {} and {} do not broadcast", str(a.shape()),
                                        str(b.shape())));
    }
  }
  Tensor full = matmul_nd(a2, b2, bf16_products(cast));  // (batch..., n, m)
  Shape out_shape(full.shape().begin(), full.shape().end() - 2);
  if (!row) out_shape.push_back(full.size(-2));
  if (!col) out_shape.push_back(full.size(-1));
  Tensor out = restride(full, out_shape, contiguous_strides(out_shape));

  bool rec = autograd::will_record({a_in, b_in});
  return autograd::record(
      "matmul", out, {a_in, b_in},
      [sa = rec ? autograd::Saved(a) : autograd::Saved(), sb = rec ? autograd::Saved(b) : autograd::Saved(), row, col,
       full_shape = full.shape(), ga_bf16 = a_in.dtype() == DType::BFloat16,
       gb_bf16 = b_in.dtype() == DType::BFloat16](const Tensor& g_in, const autograd::NeedsGrad& need) {
        const Tensor& a = sa.get();
        const Tensor& b = sb.get();
        Tensor a2 = row ? restride(a, {1, a.size(0)}, {a.size(0) * a.strides()[0], a.strides()[0]}) : a;
        Tensor b2 = col ? restride(b, {b.size(0), 1}, {b.strides()[0], 1}) : b;
        Tensor gc = contiguous_nograd(like_operand(g_in, a));
        Tensor g = restride(gc, full_shape, contiguous_strides(full_shape));  // (batch..., n, m)
        Tensor ga, gb;
        if (need[0]) {  // dA = g @ B^T, summed over A's broadcast batch dims
          Tensor full_ga = matmul_nd(g, mT(b2), ga_bf16);
          ga = sum_to(full_ga, a2.shape());
          ga = restride(ga, a.shape(), contiguous_strides(a.shape()));
        }
        if (need[1]) {  // dB = A^T @ g, summed over B's broadcast batch dims
          std::optional<Tensor> af, gf;
          if (b2.dim() == 2 && a2.dim() > 2 && (af = fold_rows(a2)) && matrix_layout(*af) && (gf = fold_rows(g)))
            gb = mm2(mT(*af), *gf, {}, gb_bf16);  // (k, R) @ (R, m): the batch sum happens inside one GEMM
          else
            gb = sum_to(matmul_nd(mT(a2), g, gb_bf16), b2.shape());
          gb = restride(gb, b.shape(), contiguous_strides(b.shape()));
        }
        return Grads{ga, gb};
      });
}

Tensor linear(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias) {
  check_operands(x_in, weight_in, "linear");
  const bool cast = autocasting(x_in) && autocasting(weight_in);
  const Tensor x = cast_nograd(x_in, cast), weight = cast_nograd(weight_in, cast);  // bias stays float32
  HM_CHECK(weight.dim() == 2, "linear", "weight must be (out, in), got {}", str(weight.shape()));
  HM_CHECK(x.dim() >= 1 && x.size(-1) == weight.size(1), "linear", "input {} does not match weight {} (in = {})",
           str(x.shape()), str(weight.shape()), weight.size(1));
  if (bias.defined()) {
    check_operands(cast ? weight_in : x_in, bias, "linear");
    HM_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), "linear", "bias {} does not match weight {} (out = {})",
             str(bias.shape()), str(weight.shape()), weight.size(0));
  }
  const int64_t in = weight.size(1), out_features = weight.size(0);
  Tensor x2 = x.dim() == 1 ? restride(x, {1, in}, {in * x.strides()[0], x.strides()[0]}) : x;
  std::optional<Tensor> xf = fold_rows(x2);
  Tensor xr = xf && matrix_layout(*xf) ? *xf : *fold_rows(contiguous_nograd(x2));  // (R, in)
  const Tensor gemm_bias = cast && bias.defined() && bias.dtype() == DType::BFloat16 ? [&] {
    NoGradGuard guard;  // the GEMM adds a float32 bias; its gradient is rounded back by the engine
    return bias.to(DType::Float32);
  }() : bias;
  Tensor out2 = mm2(xr, mT(weight), gemm_bias, bf16_products(cast));  // (R, out)
  Shape out_shape = x.shape();
  out_shape.back() = out_features;
  Tensor out = restride(out2, out_shape, contiguous_strides(out_shape));

  bool rec = autograd::will_record({x_in, weight_in, bias});
  return autograd::record(
      "linear", out, {x_in, weight_in, bias},
      [sx = rec ? autograd::Saved(xr) : autograd::Saved(), sw = rec ? autograd::Saved(weight) : autograd::Saved(),
       x_shape = x.shape(), out_features, gx_bf16 = x_in.dtype() == DType::BFloat16,
       gw_bf16 = weight_in.dtype() == DType::BFloat16](const Tensor& g_in, const autograd::NeedsGrad& need) {
        const Tensor& xr = sx.get();
        const Tensor& w = sw.get();
        Tensor gc = contiguous_nograd(g_in);
        Tensor g = restride(gc, {xr.size(0), out_features}, {out_features, 1});  // (R, out)
        Tensor gm = like_operand(g, w);                                         // bf16 under autocast
        Tensor gx, gw, gb;
        if (need[0]) gx = restride(mm2(gm, w, {}, gx_bf16), x_shape, contiguous_strides(x_shape));  // (R, out) @ (out, in)
        if (need[1]) gw = mm2(mT(gm), xr, {}, gw_bf16);                                            // (out, R) @ (R, in)
        if (need[2]) gb = sum(g, {0});                                                 // column sums
        return Grads{gx, gw, gb};
      });
}

}  // namespace hm
