#include "harmonic/core/error.h"

#include "harmonic/core/device.h"

namespace hm {

void throw_error(std::string_view fn, const std::string& message) {
  throw Error(fmt::format("[{}] {}", fn, message));
}

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda") return cuda(0);
  if (text.starts_with("cuda:")) {
    try {
      return cuda(std::stoi(text.substr(5)));
    } catch (const std::exception&) {
    }
  }
  throw_error("Device::parse", fmt::format("unknown device '{}' (expected cpu, cuda or cuda:N)", text));
}

}  // namespace hm
