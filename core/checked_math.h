// Overflow-checked int64 arithmetic for sizes computed from user-controlled numbers (shapes,
// pads, class counts): a result that does not fit in int64 throws an hm::Error naming `fn`
// and the operands instead of wrapping to a small positive size that later passes a bounds
// check and corrupts memory.
#pragma once
#include <cstdint>
#include <string_view>

#include "harmonic/core/error.h"

namespace hm {

inline int64_t checked_add(int64_t a, int64_t b, std::string_view fn) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_error(fn, fmt::format("{} + {} overflows int64", a, b));
  return r;
}

inline int64_t checked_mul(int64_t a, int64_t b, std::string_view fn) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_error(fn, fmt::format("{} * {} overflows int64", a, b));
  return r;
}

}  // namespace hm
