#include "harmonic/nn/dropout.h"

#include "harmonic/ops/nn_functional.h"

namespace hm::nn {

Dropout::Dropout(double p_, Generator* gen) : UnaryModule(fmt::format("Dropout(p={})", p_)), p(p_), gen_(gen) {
  check(p >= 0.0 && p <= 1.0, "Dropout", "p must be in [0, 1], got {}", p);
}

Tensor Dropout::forward(const Tensor& x) {
  if (!is_training() || p == 0.0) return x;
  return dropout(x, p, true, gen_);
}

Tensor Dropout::forward_add(const Tensor& x, const Tensor& r) {
  return dropout_add(x, r, p, is_training() && p > 0.0, gen_);
}

}  // namespace hm::nn
