// draw_categorical: checks and the kernel call (no autograd: the output is an index).
#include "harmonic/ops/draw_categorical.h"

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/ops/draw_categorical_kernels.h"

namespace hm {

CategoricalDraw draw_categorical(const Tensor& weights_in, const Tensor& u_in, int64_t top_k, bool with_pmf) {
  check(weights_in.defined() && u_in.defined(), "draw_categorical", "undefined tensor");
  HM_CHECK(weights_in.dim() == 2 && (weights_in.dtype() == DType::Float32 || weights_in.dtype() == DType::Float64),
           "draw_categorical", "weights must be float32 or float64 (N, M), got {}", weights_in.desc());
  HM_CHECK(weights_in.size(1) >= 1, "draw_categorical", "weights {} have no columns to draw from", weights_in.desc());
  HM_CHECK(u_in.dim() == 1 && u_in.size(0) == weights_in.size(0) && u_in.dtype() == DType::Float64, "draw_categorical",
           "u must be float64 (N) with N = {} rows of the weights, got {}", weights_in.size(0), u_in.desc());
  HM_CHECK(u_in.device() == weights_in.device(), "draw_categorical", "weights {} and u {} are on different devices",
           weights_in.desc(), u_in.desc());
  check(top_k >= 0, "draw_categorical", "top_k must be >= 0 (0: every column), got {}", top_k);
  NoGradGuard no_grad;
  const Tensor weights = weights_in.detach().contiguous(), u = u_in.detach().contiguous();
  const int64_t n = weights.size(0), m = weights.size(1);
  CategoricalDraw out;
  out.index = Tensor::empty({n}, DType::Int64, weights.device());
  if (with_pmf) out.pmf = Tensor::empty({n, m}, DType::Float64, weights.device());
  if (n > 0) draw_categorical_kernel(weights.device(), weights, u, top_k, out.index, out.pmf);
  return out;
}

}  // namespace hm
