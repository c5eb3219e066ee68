// Thread-local autocast mode and the TF32 switch (see ops/autocast.h).

#include <atomic>

#include "harmonic/core/error.h"
#include "harmonic/ops/autocast.h"

namespace hm {
namespace {
thread_local std::optional<DType> current_autocast;
thread_local AutocastProducts current_products = AutocastProducts::Float32;
std::atomic<bool> tf32_allowed{false};
bool cpu_for_tests = false;
}  // namespace

std::optional<DType> autocast_dtype() { return current_autocast; }
AutocastProducts autocast_products() { return current_autocast ? current_products : AutocastProducts::Float32; }

AutocastGuard::AutocastGuard(std::optional<DType> dtype, AutocastProducts products)
    : previous_(current_autocast), previous_products_(current_products) {
  check(!dtype || *dtype == DType::BFloat16, "AutocastGuard", "autocast supports bfloat16 only, got {}",
        dtype ? dtype_name(*dtype) : "none");
  current_autocast = dtype;
  current_products = products;
}

AutocastGuard::~AutocastGuard() {
  current_autocast = previous_;
  current_products = previous_products_;
}

std::optional<AutocastProducts> autocast_for_precision(std::string_view precision, std::string_view fn) {
  if (precision == "fp32") return std::nullopt;
  if (precision == "bf16") return AutocastProducts::Float32;
  if (precision == "bf16-activations") return AutocastProducts::BFloat16;
  throw_error(fn, fmt::format("precision '{}' is not fp32, bf16 or bf16-activations", precision));
}

Tensor autocast_widen(const Tensor& x) {
  if (!current_autocast || !x.defined() || x.dtype() != DType::BFloat16) return x;
  return x.to(DType::Float32);
}

void set_autocast_cpu_for_tests(bool on) { cpu_for_tests = on; }
bool autocast_cpu_for_tests() { return cpu_for_tests; }

namespace cuda {
void set_allow_tf32(bool allow) { tf32_allowed.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return tf32_allowed.load(std::memory_order_relaxed); }
}  // namespace cuda

}  // namespace hm
