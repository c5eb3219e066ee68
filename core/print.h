// Printing: fmt::print("{}", t) shows values like PyTorch, eliding the middle of large dims.
#pragma once
#include <fmt/format.h>

#include <string>

#include "harmonic/core/tensor.h"

namespace hm {
std::string to_string(const Tensor& t);
}

template <>
struct fmt::formatter<hm::Tensor> : fmt::formatter<std::string> {
  auto format(const hm::Tensor& t, format_context& ctx) const {
    return fmt::formatter<std::string>::format(hm::to_string(t), ctx);
  }
};
