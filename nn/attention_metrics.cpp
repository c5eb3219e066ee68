#include "harmonic/nn/attention_metrics.h"

#include "harmonic/ops/ops.h"

namespace hm::nn {

Tensor head_redundancy(const Tensor& heads) {
  HM_CHECK(heads.defined() && heads.dim() == 4 && is_floating(heads.dtype()), "head_redundancy",
           "expected float heads (B, H, N, Dv), got {}", heads.desc());
  const int64_t H = heads.size(1);
  HM_CHECK(H >= 2, "head_redundancy", "needs at least 2 heads, got {}", str(heads.shape()));
  std::vector<Tensor> dists;  // each (B)
  dists.reserve(H * (H - 1) / 2);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t g = h + 1; g < H; ++g)
      dists.push_back(norm(sub(select(heads, 1, h), select(heads, 1, g)), 2.0, {1, 2}));  // (B)
  return mean(stack(dists, 0));                                                           // mean over pairs and batch
}

}  // namespace hm::nn
