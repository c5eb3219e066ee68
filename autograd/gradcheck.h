// Finite-difference check of an op's backward: the analytic Jacobian (one backward per
// output element) against central differences, all in float64.
#pragma once
#include <functional>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

// f maps the inputs to one output tensor. Inputs that require grad must be contiguous
// float64 leaves; the others (indices, masks) are passed through unchanged. Returns true,
// or throws an Error naming the input, element, analytic and numeric values of the
// first mismatch.
bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
               const GradcheckOptions& opt = {});

}  // namespace hm
