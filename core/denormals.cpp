#include "harmonic/core/denormals.h"

#include <omp.h>

#include <algorithm>

#include "harmonic/core/parallel.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <pmmintrin.h>
#include <xmmintrin.h>
#define HM_HAS_FTZ 1
#else
#define HM_HAS_FTZ 0
#endif

namespace hm {
namespace {

#if HM_HAS_FTZ
void set_this_thread(bool on) {
  _MM_SET_FLUSH_ZERO_MODE(on ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF);              // results
  _MM_SET_DENORMALS_ZERO_MODE(on ? _MM_DENORMALS_ZERO_ON : _MM_DENORMALS_ZERO_OFF);  // operands
}
#endif

}  // namespace

int pool_width() { return std::max(get_num_threads(), omp_get_num_procs()); }

bool set_flush_denormal(bool on) {
#if HM_HAS_FTZ
  set_this_thread(on);
  // The pool's threads keep their own control register: one region as wide as the pool reaches
  // each of them (called inside a region, the others are its busy team: this thread only).
  if (!omp_in_parallel()) {
#pragma omp parallel num_threads(pool_width())
    set_this_thread(on);
  }
  return true;
#else
  (void)on;
  return false;
#endif
}

bool flush_denormal() {
#if HM_HAS_FTZ
  return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON && _MM_GET_DENORMALS_ZERO_MODE() == _MM_DENORMALS_ZERO_ON;
#else
  return false;
#endif
}

}  // namespace hm
