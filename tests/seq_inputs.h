// The fixed float64 inputs that the attention, transformer and model tests share with their
// torch reference snippets (the snippets' seq()).
#pragma once
#include "harmonic/core/factories.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::test {

// sin(a * i + b) over the row-major index i, in the given shape.
inline Tensor seq(const Shape& shape, double a, double b) {
  return reshape(sin(add(mul(arange(0, static_cast<double>(numel_of(shape)), 1, {.dtype = DType::Float64}), a), b)),
                 shape);
}

}  // namespace hm::test
