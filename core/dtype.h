// Element types and the helpers that turn a run-time dtype into a C++ type.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "harmonic/core/error.h"

namespace hm {

enum class DType : uint8_t { Float32, Float64, Int64, Bool, BFloat16, Float16 };

// bfloat16 storage type: the upper 16 bits of an IEEE float (round to nearest even).
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) { bits = 0x7fc0; return; }  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = static_cast<uint16_t>(u >> 16);
  }
  explicit operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::Bool: return 1;
    case DType::BFloat16: return 2;
    case DType::Float16: return 2;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    case DType::BFloat16: return "bfloat16";
    case DType::Float16: return "float16";
  }
  return "?";
}

constexpr bool is_floating(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16 || t == DType::Float16;
}

// bfloat16 meeting float32 in a binary op computes and returns float32 (PyTorch's promotion,
// without a converted copy); every other pair of different dtypes needs an explicit to().
constexpr bool mixes_bf16_and_float32(DType a, DType b) {
  return (a == DType::BFloat16 && b == DType::Float32) || (a == DType::Float32 && b == DType::BFloat16);
}

// The type arithmetic on elements of T runs in: float32 for bfloat16 (kernels read bfloat16,
// compute in float32 and round once on the store, as PyTorch's do), T itself otherwise.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<BFloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

// Element conversions with PyTorch's rules (bfloat16 through float32, nonzero to true).
template <class To, class From>
inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (std::is_same_v<From, BFloat16>) return convert<To>(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, BFloat16>) return BFloat16(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, bool>) return x != From(0);
  else return static_cast<To>(x);
}

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }
template <> constexpr DType dtype_of<BFloat16>() { return DType::BFloat16; }

// Calls f.template operator()<T>() with T the C++ type of a float32/float64 dtype.
template <class F>
decltype(auto) dispatch_float(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    default: throw_error(fn, fmt::format("expected a float32 or float64 tensor, got {}", dtype_name(t)));
  }
}

// Float32, Float64 and Int64.
template <class F>
decltype(auto) dispatch_numeric(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Int64: return f.template operator()<int64_t>();
    default:
      throw_error(fn, fmt::format("expected a float32, float64 or int64 tensor, got {}", dtype_name(t)));
  }
}

// Float32, Float64 and BFloat16 (whose kernels compute in float32: compute_t).
template <class F>
decltype(auto) dispatch_floating(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::BFloat16: return f.template operator()<BFloat16>();
    default:
      throw_error(fn, fmt::format("expected a float32, float64 or bfloat16 tensor, got {}", dtype_name(t)));
  }
}

// Every dtype but float16 (no float16 kernels). Arithmetic on bfloat16 runs in float32 where a
// kernel computes in bfloat16 at all: copies, fills and the elementwise families do; most other
// kernels take float32/float64 only (dispatch_float).
template <class F>
decltype(auto) dispatch_storage(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Int64: return f.template operator()<int64_t>();
    case DType::Bool: return f.template operator()<bool>();
    case DType::BFloat16: return f.template operator()<BFloat16>();
    default: throw_error(fn, fmt::format("no CPU kernel for dtype {}", dtype_name(t)));
  }
}

// Every dtype with arithmetic CPU kernels of every op family (bfloat16 is not among them).
template <class F>
decltype(auto) dispatch_all(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Int64: return f.template operator()<int64_t>();
    case DType::Bool: return f.template operator()<bool>();
    default: throw_error(fn, fmt::format("no CPU kernel for dtype {}", dtype_name(t)));
  }
}

}  // namespace hm

template <>
struct fmt::formatter<hm::DType> : fmt::formatter<std::string_view> {
  auto format(hm::DType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(hm::dtype_name(t), ctx);
  }
};
