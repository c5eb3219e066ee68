// Dropout: zeroes elements with probability p and scales the rest by 1/(1-p) in training;
// the identity in eval().
#pragma once
#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

class Dropout : public UnaryModule {
 public:
  explicit Dropout(double p = 0.5, Generator* gen = nullptr);
  Tensor forward(const Tensor& x) override;
  // x + forward(r) as one op (dropout_add): the same mask, bit for bit the composition.
  Tensor forward_add(const Tensor& x, const Tensor& r);

  double p;

 private:
  Generator* gen_;  // not owned; null = the default generator
};

}  // namespace hm::nn
