// Unary math on float dtypes (neg and abs also on int64), each with its gradient.
#pragma once
#include "harmonic/core/tensor.h"

namespace hm {

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor abs(const Tensor& x);                         // d|x|/dx = sign(x), 0 at 0
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
enum class GeluApprox { None, Tanh };
Tensor gelu(const Tensor& x, GeluApprox approx = GeluApprox::None);  // erf form by default
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor clamp(const Tensor& x, double lo, double hi);  // gradient 1 strictly inside (lo, hi), 0 on a bound
Tensor square(const Tensor& x);
Tensor pow(const Tensor& x, double exponent);        // x ^ exponent

inline Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace hm
