// Comparisons (bool results, not differentiable) and selection with NumPy broadcasting.
// A number beside a tensor is compared in the dtype PyTorch promotes the pair to.
#pragma once
#include "harmonic/core/scalar.h"
#include "harmonic/core/tensor.h"

namespace hm {

Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, Scalar b);               // compared in the promoted dtype: arange(5) < 2.5
Tensor ne(const Tensor& a, Scalar b);
Tensor lt(const Tensor& a, Scalar b);
Tensor le(const Tensor& a, Scalar b);
Tensor gt(const Tensor& a, Scalar b);
Tensor ge(const Tensor& a, Scalar b);
Tensor logical_not(const Tensor& x);                 // any dtype -> bool (x == 0)
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);  // cond bool, broadcast
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);  // mask bool, broadcast to x

}  // namespace hm
