#include "harmonic/core/deterministic.h"

#include <atomic>
#include <cstdlib>
#include <string_view>

namespace hm {
namespace {
std::atomic<int> forced{-1};  // -1: HARMONIC_DETERMINISTIC decides
}  // namespace

bool deterministic() {
  const int f = forced.load(std::memory_order_relaxed);
  if (f >= 0) return f == 1;
  static const bool from_env = [] {
    const char* v = std::getenv("HARMONIC_DETERMINISTIC");
    return v && std::string_view(v) == "1";
  }();
  return from_env;
}

void set_deterministic(bool on) { forced.store(on ? 1 : 0, std::memory_order_relaxed); }

}  // namespace hm
