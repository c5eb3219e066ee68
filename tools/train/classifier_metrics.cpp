#include "tools/train/classifier_metrics.h"

#include <algorithm>

#include "core/error.h"
#include "ops/ops.h"

namespace hm::train {

ClassifierMetrics classifier_metrics(nn::UnaryModule& model, const Tensor& x, const Tensor& y, int64_t chunk) {
  check(x.dim() >= 1 && y.dim() == 1 && x.size(0) == y.size(0) && y.size(0) > 0, "classifier_metrics",
        "need x (N, ...) and labels y (N,) with N > 0, got {} and {}", str(x.shape()), str(y.shape()));
  check(chunk >= 1, "classifier_metrics", "chunk must be >= 1, got {}", chunk);
  const int64_t n = x.size(0);
  double loss_sum = 0, correct = 0;
  for (int64_t i = 0; i < n; i += chunk) {
    const int64_t e = std::min(n, i + chunk);
    Tensor logits = model.forward(slice(x, 0, i, e));  // (chunk, classes)
    Tensor labels = slice(y, 0, i, e);
    loss_sum += cross_entropy(logits, labels).item<double>() * static_cast<double>(e - i);
    correct += sum(eq(argmax(logits, 1), labels).to(DType::Float64)).item<double>();
  }
  return {loss_sum / static_cast<double>(n), correct / static_cast<double>(n)};
}

}  // namespace hm::train
