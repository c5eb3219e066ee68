// Metrics of class predictions (evaluation only, no autograd): per-class and macro F1, as
// scikit-learn's f1_score(average=None / 'macro') with labels=None.
#pragma once
#include <cstdint>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::nn {

// Per class c of 0..num_classes-1: F1 = 2 TP / (2 TP + FP + FN) from predicted and target
// (n) int64; NaN for a class that occurs in neither (0 / 0). Throws naming the function for
// mismatched shapes or a class outside 0..num_classes-1.
std::vector<double> per_class_f1(const Tensor& predicted, const Tensor& target, int64_t num_classes);

// The mean of per_class_f1 over the classes that occur in target or predicted (sklearn's
// macro average: a class never predicted nor present does not count).
double macro_f1(const Tensor& predicted, const Tensor& target, int64_t num_classes);

}  // namespace hm::nn
