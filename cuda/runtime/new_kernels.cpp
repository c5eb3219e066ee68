// The switch between the kernels first written without a GPU and those they replaced
// (cuda/runtime/runtime.h), in both builds.
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "harmonic/cuda/runtime/runtime.h"

namespace hm::cuda {
namespace {
std::atomic<int> forced{-1};  // -1: the environment decides
}  // namespace

bool new_kernels_enabled() {
  const int f = forced.load(std::memory_order_relaxed);
  if (f >= 0) return f == 1;
  static const bool from_env = [] {
    const char* v = std::getenv("HARMONIC_NEW_KERNELS");
    return !(v && std::string_view(v) == "0");
  }();
  return from_env;
}

ScopedNewKernels::ScopedNewKernels(bool on) : previous_(forced.exchange(on ? 1 : 0)) {}
ScopedNewKernels::~ScopedNewKernels() { forced.store(previous_); }

}  // namespace hm::cuda
