// draw_categorical: one inverse-CDF draw per row of non-negative weights, the sampling step of
// autoregressive decoding (Chronos forecasts, models/sampling.h), on the weights' device so a
// decoding loop reads nothing back per token and a CUDA graph can capture it.
#pragma once
#include <cstdint>

#include "harmonic/core/tensor.h"

namespace hm {

struct CategoricalDraw {
  Tensor index;  // int64 (N): the drawn column of each row
  Tensor pmf;    // float64 (N, M): the kept weights over their total; undefined unless asked for
};

// weights (N, M) float32/float64, unnormalised, >= 0 (softmax outputs, exp of tempered logits),
// u (N) float64 uniforms in [0, 1) on the same device. Row r keeps its top_k largest weights
// (ties with the k-th kept, as Hugging Face's top-k filter; 0 or >= M: all), totals them in
// column order in float64, and draws the first kept column j whose running total exceeds
// u_r * total (the last positive column if rounding leaves none). Not differentiable.
// A row with a negative or non-finite weight, or no positive one, is an hm::Error naming the
// row (on a CUDA device inside a cuda::DeferredChecks scope: at the host's next wait).
CategoricalDraw draw_categorical(const Tensor& weights, const Tensor& u, int64_t top_k = 0, bool with_pmf = false);

}  // namespace hm
