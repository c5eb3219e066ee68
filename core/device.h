// Where a tensor's bytes live.
#pragma once
#include <fmt/format.h>

#include <string>

namespace hm {

enum class DeviceKind : uint8_t { CPU, CUDA };

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceKind::CUDA, index}; }
  // Parses "cpu", "cuda", "cuda:1".
  static Device parse(const std::string& text);

  bool is_cpu() const { return kind == DeviceKind::CPU; }
  bool is_cuda() const { return kind == DeviceKind::CUDA; }
  bool operator==(const Device&) const = default;
  std::string str() const { return is_cpu() ? "cpu" : fmt::format("cuda:{}", index); }
};

}  // namespace hm

template <>
struct fmt::formatter<hm::Device> : fmt::formatter<std::string> {
  auto format(const hm::Device& d, format_context& ctx) const {
    return fmt::formatter<std::string>::format(d.str(), ctx);
  }
};
