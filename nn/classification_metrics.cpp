#include "harmonic/nn/classification_metrics.h"

#include <cmath>

#include "harmonic/core/error.h"

namespace hm::nn {

std::vector<double> per_class_f1(const Tensor& predicted, const Tensor& target, int64_t num_classes) {
  constexpr const char* fn = "per_class_f1";
  check(predicted.defined() && target.defined() && predicted.dim() == 1 && predicted.shape() == target.shape() &&
            predicted.dtype() == DType::Int64 && target.dtype() == DType::Int64,
        fn, "predicted and target must be int64 (n) of one shape, got {} and {}",
        predicted.defined() ? predicted.desc() : "undefined", target.defined() ? target.desc() : "undefined");
  check(num_classes >= 1, fn, "num_classes must be >= 1, got {}", num_classes);
  const std::vector<int64_t> p = predicted.to_vector_as<int64_t>(), t = target.to_vector_as<int64_t>();
  std::vector<double> tp(static_cast<size_t>(num_classes)), fp(tp.size()), fn_(tp.size());
  for (size_t i = 0; i < p.size(); ++i) {
    check(p[i] >= 0 && p[i] < num_classes && t[i] >= 0 && t[i] < num_classes, fn,
          "item {}: predicted {} / target {} outside 0..{}", i, p[i], t[i], num_classes - 1);
    if (p[i] == t[i]) {
      tp[static_cast<size_t>(p[i])] += 1;
    } else {
      fp[static_cast<size_t>(p[i])] += 1;
      fn_[static_cast<size_t>(t[i])] += 1;
    }
  }
  std::vector<double> f1(tp.size());
  for (size_t c = 0; c < f1.size(); ++c) {
    const double denom = 2 * tp[c] + fp[c] + fn_[c];
    f1[c] = denom > 0 ? 2 * tp[c] / denom : NAN;
  }
  return f1;
}

double macro_f1(const Tensor& predicted, const Tensor& target, int64_t num_classes) {
  double sum = 0;
  int64_t counted = 0;
  for (double f : per_class_f1(predicted, target, num_classes))
    if (!std::isnan(f)) sum += f, ++counted;
  return counted > 0 ? sum / static_cast<double>(counted) : NAN;
}

}  // namespace hm::nn
