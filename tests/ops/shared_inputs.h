// Inputs and checks that several op test files share (tests/ops/test_<stem>.cpp).
#pragma once
#include <cmath>
#include <complex>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <vector>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/autograd/node.h"
#include "tests/device_harness.h"

namespace hm::test {

using Inputs = std::vector<Tensor>;  // a gradcheck function's arguments
inline constexpr DType f64 = DType::Float64;
inline const double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A float64 tensor of the values (a scalar without a shape).
inline Tensor doubles(std::initializer_list<double> v, const Shape& shape = {}) {
  return tensor(v, shape, {.dtype = DType::Float64});
}
// An int64 tensor (indices, class targets) of the given shape.
inline Tensor ints(const std::vector<int64_t>& v, const Shape& shape) { return from_vector(v, shape); }
// An integer result's values (argmax, indices).
inline std::vector<int64_t> ints(const Tensor& t) { return t.to_vector_as<int64_t>(); }

inline Tensor normal(const Shape& shape, uint64_t seed, DType dtype = DType::Float64) {
  Generator gen(seed);
  return randn(shape, {.dtype = dtype}, &gen);
}

// scale * N(0, 1), drawn in float64 and then converted: the same values in either dtype.
inline Tensor scaled_normal(const Shape& shape, uint64_t seed, double scale = 1.0, DType dtype = DType::Float64) {
  Generator gen(seed);
  return mul(randn(shape, {.dtype = DType::Float64}, &gen), scale).to(dtype);
}

// X_k = sum_j x_j exp(sign 2 pi i j k / n), angles reduced exactly in integers (a table of the
// n roots, indexed by j k mod n).
inline std::vector<std::complex<long double>> direct_dft(const std::vector<std::complex<long double>>& x,
                                                         int sign = -1) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<std::complex<long double>> roots(n), out(n);
  for (int64_t r = 0; r < n; ++r) {
    const long double a = sign * 2.0L * std::numbers::pi_v<long double> * r / n;
    roots[r] = std::complex<long double>(std::cos(a), std::sin(a));
  }
  for (int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (int64_t j = 0, jk = 0; j < n; ++j, jk = (jk + k) % n) {
      re += x[j].real() * roots[jk].real() - x[j].imag() * roots[jk].imag();
      im += x[j].real() * roots[jk].imag() + x[j].imag() * roots[jk].real();
    }
    out[k] = std::complex<long double>(re, im);
  }
  return out;
}

// A differentiable transpose of a 2-d tensor as a strided view (shape ops live elsewhere;
// this keeps the test self-contained): the op under test then sees a non-contiguous input.
inline Tensor transposed_view(const Tensor& x) {
  const int64_t r = x.size(0), c = x.size(1);
  Tensor xc = x.contiguous();
  Tensor t = Tensor::view_of(xc.storage(), {c, r}, {1, c}, xc.offset(), xc.dtype());
  return autograd::record("transposed_view", t, {xc}, [r, c](const Tensor& g, const autograd::NeedsGrad&) {
    Tensor gc = g.contiguous();
    return std::vector<Tensor>{Tensor::view_of(gc.storage(), {r, c}, {1, r}, gc.offset(), gc.dtype()).contiguous()};
  });
}

inline Tensor values(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 7, double scale = 3.0) {
  Generator gen(seed);
  Tensor x = mul(randn(shape, {.dtype = DType::Float64}, &gen), scale);
  return dtype == DType::Bool ? x.to(DType::Int64).to(dtype) : x.to(dtype);
}

// Integer-valued floats: many exact ties for max/min/maximum.
inline Tensor ties(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 11) {
  return values(shape, DType::Int64, seed, 1.5).to(dtype);
}

inline Tensor positive(const Shape& shape, DType dtype = DType::Float64, uint64_t seed = 5) {
  return add(abs(values(shape, DType::Float64, seed, 2.0)), 0.1).to(dtype);
}

// (rows, cols) transposed view of a contiguous (cols, rows) tensor: a non-contiguous input.
inline Tensor transposed(const Tensor& x) {
  return view(x, {x.shape()[1], x.shape()[0]}, {x.strides()[1], x.strides()[0]});
}

// torch.sin(torch.arange(n, dtype=float64) * step).reshape(shape) * scale (the reference inputs)
inline Tensor wave(const Shape& shape, double step, double scale) {
  return reshape(mul(sin(mul(arange(0.0, static_cast<double>(numel_of(shape)), 1.0, {.dtype = DType::Float64}), step)), scale),
                 shape);
}

// Class indices in [0, classes) with every `ignore_every`-th replaced by -100.
inline Tensor class_targets(const Shape& shape, int64_t classes, uint64_t seed, int64_t ignore_every = 0) {
  Generator gen(seed);
  Tensor u = rand(shape, {.dtype = DType::Float64}, &gen);
  std::vector<double> v = u.to_vector();
  std::vector<int64_t> t(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    t[i] = std::min<int64_t>(classes - 1, static_cast<int64_t>(v[i] * static_cast<double>(classes)));
    if (ignore_every > 0 && i % ignore_every == 1) t[i] = -100;
  }
  return from_vector(t, shape);
}

inline Tensor X() {  // (2, 3, 4) float64
  return from_vector(std::vector<double>{3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, -3, 8, 4, 6, 2, 6, 4},
                     {2, 3, 4});
}

// gradcheck of a unary reduction f on a (2, 3, 4) input, contiguous and through a transpose.
template <class F>
void gradcheck_both_layouts(F f, uint64_t seed = 3) {
  Tensor x = leaf64({2, 3, 4}, seed);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x}));
  Tensor y = leaf64({4, 3, 2}, seed + 1);
  CHECK(gradcheck([&](const std::vector<Tensor>& in) { return f(transpose(in[0], 0, 2)); }, {y}));
}

inline Tensor lin(double lo, double hi, const Shape& shape) {
  return reshape(linspace(lo, hi, numel_of(shape), {.dtype = DType::Float64}), shape);
}

inline Tensor bool_mask(const std::vector<int64_t>& values, const Shape& shape) {
  return ne(from_vector(values, shape), zeros(shape, {.dtype = DType::Int64}));
}

inline bool shares_storage(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

}  // namespace hm::test
