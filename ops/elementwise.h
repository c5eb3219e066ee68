// Elementwise ops with NumPy broadcasting. Two tensors must have equal dtypes (no silent
// promotion). A number beside a tensor follows PyTorch: a floating number lifts an integer or
// bool tensor to float32, an integer lifts a bool tensor to int64, and `/` (true division)
// always gives a floating result. Gradients of broadcast inputs are summed back to the
// input's shape (sum_to in ops/reduce.h).
#pragma once
#include "core/scalar.h"
#include "core/tensor.h"

namespace hm {

// -- arithmetic -------------------------------------------------------------------------------
Tensor add(const Tensor& a, const Tensor& b);       // a + b
Tensor sub(const Tensor& a, const Tensor& b);       // a - b
Tensor mul(const Tensor& a, const Tensor& b);       // a * b
Tensor div(const Tensor& a, const Tensor& b);       // a / b
Tensor pow(const Tensor& a, const Tensor& b);       // a ^ b (float)
Tensor maximum(const Tensor& a, const Tensor& b);   // gradient to the larger; split in half on ties
Tensor minimum(const Tensor& a, const Tensor& b);   // gradient to the smaller; split in half on ties
Tensor add(const Tensor& a, Scalar b);
Tensor sub(const Tensor& a, Scalar b);
Tensor mul(const Tensor& a, Scalar b);
Tensor div(const Tensor& a, Scalar b);              // true division: int64/bool give float32
Tensor pow(const Tensor& a, double exponent);
Tensor rsub(const Tensor& a, Scalar b);             // b - a

// -- unary math (float dtypes; neg/abs also int64) --------------------------------------------
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
Tensor clamp(const Tensor& x, double lo, double hi);  // gradient 1 inside [lo, hi], else 0
Tensor square(const Tensor& x);

// -- comparisons and selection (comparisons return bool, not differentiable) -------------------
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

// -- operators --------------------------------------------------------------------------------
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
inline Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(Scalar a, const Tensor& b) { return rsub(b, a); }
inline Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
inline Tensor operator-(const Tensor& x) { return neg(x); }

// -- in-place updates for optimizers (no autograd; bump the version counter) -------------------
void add_(Tensor& x, const Tensor& y, double alpha = 1.0);  // x += alpha * y
void mul_(Tensor& x, double s);                               // x *= s

}  // namespace hm
