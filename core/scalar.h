// A number passed to an op beside a tensor. It remembers whether it was written as a bool, an
// integer or a floating-point value, because that decides the result dtype (PyTorch's rule:
// arange(5) * 0.3 is float32, arange(5) * 2 stays int64).
#pragma once
#include <cstdint>
#include <type_traits>

namespace hm {

struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Float };

  template <class T>
    requires std::is_arithmetic_v<T>
  Scalar(T v)  // NOLINT(google-explicit-constructor): numbers convert implicitly, as in x * 0.5
      : value(static_cast<double>(v)),
        kind(std::is_same_v<T, bool> ? Kind::Bool : std::is_integral_v<T> ? Kind::Int : Kind::Float) {}

  double value;  // integers beyond 2^53 lose precision here
  Kind kind;
};

}  // namespace hm
