#include "harmonic/tools/train/classifier_metrics.h"

#include <algorithm>

#include "harmonic/core/error.h"
#include "harmonic/ops/ops.h"

namespace hm::train {

int64_t top_k_hits(const Tensor& logits, const Tensor& labels, int64_t k) {
  HM_CHECK(logits.defined() && labels.defined() && logits.dim() == 2 && labels.dim() == 1 &&
               labels.dtype() == DType::Int64 && logits.size(0) == labels.size(0),
           "top_k_hits", "need logits (N, C) and int64 labels (N,), got {} and {}",
           logits.defined() ? logits.desc() : "undefined", labels.defined() ? labels.desc() : "undefined");
  check(k >= 1 && k <= logits.size(1), "top_k_hits", "k must be in [1, {}] (the classes), got {}", logits.size(1), k);
  Tensor target = gather(logits, 1, unsqueeze(labels, 1));         // (N, 1) the label's logit
  Tensor above = sum(gt(logits, target).to(DType::Float64), {1});  // (N,) logits strictly greater
  return static_cast<int64_t>(sum(lt(above, static_cast<double>(k)).to(DType::Float64)).item<double>());
}

ClassifierMetrics classifier_metrics(nn::UnaryModule& model, const Tensor& x, const Tensor& y, int64_t chunk,
                                     int64_t top_k) {
  check(x.dim() >= 1 && y.dim() == 1 && x.size(0) == y.size(0) && y.size(0) > 0, "classifier_metrics",
        "need x (N, ...) and labels y (N,) with N > 0, got {} and {}", str(x.shape()), str(y.shape()));
  check(chunk >= 1, "classifier_metrics", "chunk must be >= 1, got {}", chunk);
  check(top_k >= 0, "classifier_metrics", "top_k must be >= 0 (0: not measured), got {}", top_k);
  const int64_t n = x.size(0);
  double loss_sum = 0, correct = 0, top_k_correct = 0;
  for (int64_t i = 0; i < n; i += chunk) {
    const int64_t e = std::min(n, i + chunk);
    Tensor logits = model.forward(slice(x, 0, i, e));  // (chunk, classes)
    Tensor labels = slice(y, 0, i, e);
    loss_sum += cross_entropy(logits, labels).item<double>() * static_cast<double>(e - i);
    correct += sum(eq(argmax(logits, 1), labels).to(DType::Float64)).item<double>();
    if (top_k > 0) top_k_correct += static_cast<double>(top_k_hits(logits, labels, top_k));
  }
  const double nd = static_cast<double>(n);
  return {loss_sum / nd, correct / nd, top_k, top_k > 0 ? top_k_correct / nd : 0.0};
}

}  // namespace hm::train
