// Harmonic's one exception type. Messages start with the function name in brackets,
// "[matmul] shapes (3, 4) and (5, 6) ...", and show the offending shapes/dtypes/values.
#pragma once
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hm {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_error(std::string_view fn, const std::string& message);

// check(ok, "fn", "format {}", args...): throws Error("[fn] message") when !ok.
// Arguments are evaluated eagerly but only formatted on failure.
template <class... Args>
inline void check(bool ok, std::string_view fn, fmt::format_string<Args...> format, Args&&... args) {
  if (!ok) [[unlikely]]
    throw_error(fn, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace hm

// HM_CHECK(ok, "fn", "format {}", args...): check() whose arguments are evaluated only on
// failure. For messages built from t.desc() or str(shape): evaluated eagerly on every call,
// those strings cost more than a small op itself.
#define HM_CHECK(ok, fn, ...)                              \
  do {                                                     \
    if (!(ok)) [[unlikely]]                                \
      ::hm::throw_error((fn), ::fmt::format(__VA_ARGS__)); \
  } while (false)
