// Tensor constructors. Options use designated initialisers:
//   auto w = hm::randn({64, 32}, {.dtype = hm::DType::Float64, .requires_grad = true});
#pragma once
#include <concepts>
#include <initializer_list>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"

namespace hm {

struct TensorOptions {
  DType dtype = DType::Float32;
  Device device = Device::cpu();
  bool requires_grad = false;
};

Tensor empty(const Shape& shape, TensorOptions opt = {});
Tensor zeros(const Shape& shape, TensorOptions opt = {});
Tensor ones(const Shape& shape, TensorOptions opt = {});
Tensor full(const Shape& shape, double value, TensorOptions opt = {});
Tensor scalar_tensor(double value, TensorOptions opt = {});  // 0-d
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, double value);

// [start, end) in steps; dtype int64 unless options say otherwise.
Tensor arange(double start, double end, double step = 1.0, TensorOptions opt = {.dtype = DType::Int64});
Tensor arange(int64_t end, TensorOptions opt = {.dtype = DType::Int64});
// `steps` points from start to end inclusive.
Tensor linspace(double start, double end, int64_t steps, TensorOptions opt = {});
Tensor eye(int64_t n, TensorOptions opt = {});

// Uniform in [low, high) and standard normal, from `gen` (the default generator when null).
Tensor rand(const Shape& shape, TensorOptions opt = {}, Generator* gen = nullptr);
Tensor uniform(const Shape& shape, double low, double high, TensorOptions opt = {}, Generator* gen = nullptr);
Tensor randn(const Shape& shape, TensorOptions opt = {}, Generator* gen = nullptr);
Tensor normal(const Shape& shape, double mean, double std, TensorOptions opt = {}, Generator* gen = nullptr);
// Integers uniform in [low, high), int64.
Tensor randint(int64_t low, int64_t high, const Shape& shape, Generator* gen = nullptr);
// A random permutation of 0..n-1 (int64), Fisher-Yates driven by the generator.
Tensor randperm(int64_t n, Generator* gen = nullptr);

// From host data (copied). The element count must match the shape.
template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions opt = {.dtype = dtype_of<T>()});
// A tensor from a brace list, with shape (n,) unless given. Like torch.tensor: a list with any
// floating number is float32, tensor({1.5, 2}); a list of integers only is int64,
// tensor({1, 2, 3}). An explicit opt sets the dtype either way.
Tensor tensor(std::initializer_list<double> values, const Shape& shape = {}, TensorOptions opt = {});
template <std::integral T>
  requires(!std::same_as<T, bool>)
Tensor tensor(std::initializer_list<T> values, const Shape& shape = {}, TensorOptions opt = {.dtype = DType::Int64}) {
  std::vector<int64_t> v(values.begin(), values.end());
  return from_vector(v, shape.empty() ? Shape{static_cast<int64_t>(v.size())} : shape, opt);
}

}  // namespace hm
