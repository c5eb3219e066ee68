// Thread-local autocast mode and the TF32 switch (see ops/autocast.h).
#include "harmonic/ops/autocast.h"

#include <atomic>

#include "harmonic/core/error.h"

namespace hm {
namespace {
thread_local std::optional<DType> current_autocast;
std::atomic<bool> tf32_allowed{false};
bool cpu_for_tests = false;
}  // namespace

std::optional<DType> autocast_dtype() { return current_autocast; }

AutocastGuard::AutocastGuard(std::optional<DType> dtype) : previous_(current_autocast) {
  check(!dtype || *dtype == DType::BFloat16, "AutocastGuard", "autocast supports bfloat16 only, got {}",
        dtype ? dtype_name(*dtype) : "none");
  current_autocast = dtype;
}

AutocastGuard::~AutocastGuard() { current_autocast = previous_; }

void set_autocast_cpu_for_tests(bool on) { cpu_for_tests = on; }
bool autocast_cpu_for_tests() { return cpu_for_tests; }

namespace cuda {
void set_allow_tf32(bool allow) { tf32_allowed.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return tf32_allowed.load(std::memory_order_relaxed); }
}  // namespace cuda

}  // namespace hm
