#include "harmonic/core/blas_runtime.h"

#include <cstdlib>
#include <string>

// OpenBLAS's DYNAMIC_ARCH entry points, declared weak: null when the linked BLAS is another one
// (or a build for one fixed CPU), and then nothing is changed.
extern "C" {
char* openblas_get_corename(void) __attribute__((weak));
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
}

namespace hm {
namespace {

// OpenBLAS's x86-64 fallback for a CPU missing from its model table.
constexpr const char* kFallbackCore = "Prescott";

// OpenBLAS reads OPENBLAS_CORETYPE only in gotoblas_dynamic_init, which its constructor has
// already run: set it for one re-initialisation (before any BLAS call, so no buffer or
// thread depends on the old choice) and take it back, so child processes decide for themselves.
std::string choose_blas_kernels() {
  if (!openblas_get_corename || !gotoblas_dynamic_init || !gotoblas_dynamic_quit) return "";
  if (std::getenv("OPENBLAS_CORETYPE")) return "";  // the user's choice stands
  const std::string detected = openblas_get_corename();
  if (detected != kFallbackCore) return "";
  const std::string core = blas_core_for_this_cpu();
  if (core.empty()) return "";
  ::setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  ::unsetenv("OPENBLAS_CORETYPE");
  return std::string(openblas_get_corename()) +
         " kernels chosen by Harmonic (OpenBLAS did not recognise this CPU and took " + detected + ")";
}

// When libharmonic loads: OpenBLAS, a dependency, is initialised by then, and nothing has called it.
const std::string kChoice = choose_blas_kernels();

}  // namespace

const std::string& blas_kernel_choice() { return kChoice; }

std::string blas_core_in_use() { return openblas_get_corename ? openblas_get_corename() : ""; }

std::string blas_core_for(bool avx512, bool avx2_fma, bool avx) {
  if (avx512) return "SkylakeX";
  if (avx2_fma) return "Haswell";
  if (avx) return "SandyBridge";
  return "";
}

std::string blas_core_for_this_cpu() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();  // we may run before libgcc's own constructor
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl");
  const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return blas_core_for(avx512, avx2_fma, __builtin_cpu_supports("avx"));
#else
  return "";
#endif
}

}  // namespace hm
