// Binary arithmetic with NumPy broadcasting, its operators and the in-place optimizer updates.
// Two tensors must have equal dtypes (no silent promotion). A number beside a tensor follows
// PyTorch: a floating number lifts an integer or bool tensor to float32, an integer lifts a bool
// tensor to int64, and `/` (true division) always gives a floating result.
// Gradients of broadcast inputs are summed back to the input's shape (sum_to in ops/sum.h).
#pragma once
#include "harmonic/core/scalar.h"
#include "harmonic/core/tensor.h"

namespace hm {

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
Tensor rsub(const Tensor& a, Scalar b);             // b - a

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

// In-place updates for optimizers (no autograd; bump the version counter).
void add_(Tensor& x, const Tensor& y, double alpha = 1.0);  // x += alpha * y
void mul_(Tensor& x, double s);                               // x *= s

}  // namespace hm
