// The choice of scaled_dot_product_attention's kernels on CUDA devices
// (cuda/scaled_dot_product_attention_route.h says the rules).
#include "harmonic/cuda/scaled_dot_product_attention_route.h"

#include <cstdlib>
#include <cstring>

#include "harmonic/core/deterministic.h"
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/ops/scaled_dot_product_attention_kernels.h"

namespace hm::cuda {
namespace {

SdpaPath g_path = SdpaPath::Auto;

// HARMONIC_FLASH: "0" turns the tiled kernels off, "1" takes them wherever they cover the case;
// unset, Auto takes them where they measured faster than the composed form.
const char* flash_env() {
  static const char* e = std::getenv("HARMONIC_FLASH");
  return e;
}

// Rule 1 and 2 of the header: whether the op answers CUDA tensors with the composed form.
bool takes_composed(const Tensor& q, const Tensor& k, const Tensor& v) {
  if (!q.device().is_cuda()) return false;
  if (g_path != SdpaPath::Auto) return g_path == SdpaPath::Composed;
  if (sdpa_flash_enabled() && sdpa_flash_covers(q.size(3), v.size(3), q.dtype()) &&
      (sdpa_flash_forced() || sdpa_flash_faster(q.size(3), k.size(2))))
    return false;
  return sdpa_composed_fits(q.size(0) * q.size(1) * q.size(2) * k.size(2), q.dtype(), q.device());
}

[[maybe_unused]] const bool bound = (sdpa_takes_composed = takes_composed, true);

}  // namespace

SdpaPath sdpa_path() { return g_path; }
ScopedSdpaPath::ScopedSdpaPath(SdpaPath path) : previous_(g_path) { g_path = path; }
ScopedSdpaPath::~ScopedSdpaPath() { g_path = previous_; }

bool sdpa_flash_enabled() {
  const bool off = flash_env() && std::strcmp(flash_env(), "0") == 0;
  return g_path == SdpaPath::Flash || (g_path == SdpaPath::Auto && !off);
}

bool sdpa_flash_forced() { return flash_env() && std::strcmp(flash_env(), "1") == 0; }

bool sdpa_composed_fits(int64_t weights, DType dtype, Device device) {
  if (!device.is_cuda()) return false;
  const double need =
      static_cast<double>(kSdpaComposedCopies) * static_cast<double>(weights) * static_cast<double>(dtype_size(dtype));
  return need <= 0.5 * static_cast<double>(memory_available(device.index));
}

SdpaKernel sdpa_forward_route(int64_t D, int64_t Dv, DType dtype) {
  return sdpa_flash_enabled() && sdpa_flash_covers(D, Dv, dtype) ? SdpaKernel::Tiled : SdpaKernel::Reference;
}

SdpaBackwardKernel sdpa_backward_route(int64_t D, int64_t Dv, DType dtype, bool bias_grad) {
  if (sdpa_forward_route(D, Dv, dtype) == SdpaKernel::Reference) return SdpaBackwardKernel::Reference;
  return deterministic() || bias_grad ? SdpaBackwardKernel::TiledTwoPass : SdpaBackwardKernel::TiledOnePass;
}

int64_t& sdpa_flash_runs() {
  static int64_t runs = 0;
  return runs;
}

int64_t& sdpa_flash_single_pass_runs() {
  static int64_t runs = 0;
  return runs;
}

}  // namespace hm::cuda
