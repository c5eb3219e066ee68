#include "harmonic/core/random.h"

#include <mutex>

#include "harmonic/core/parallel.h"
#include "harmonic/core/philox.h"

namespace hm {

uint64_t Generator::reserve(uint64_t n) {
  uint64_t start = offset_;
  offset_ += philox::counters_for(n);
  return start;
}

Generator& default_generator() {
  thread_local Generator g(0);
  return g;
}

void manual_seed(uint64_t seed) { default_generator().set_state(seed, 0); }

namespace {

uint64_t with_base(uint64_t offset, const Tensor& offset_base) {
  return offset_base.defined() ? offset + static_cast<uint64_t>(*offset_base.data<int64_t>()) : offset;
}

void cpu_uniform(const Tensor& out, uint64_t seed, uint64_t offset_in, const Tensor& offset_base, double low,
                 double high) {
  const uint64_t offset = with_base(offset_in, offset_base);
  dispatch_float(out.dtype(), "uniform_", [&]<class T>() {
    T* p = out.data<T>();
    T lo = static_cast<T>(low), span = static_cast<T>(high - low);
    parallel_for(out.numel(), 64, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = lo + span * philox::uniform<T>(seed, offset, i);
    });
  });
}

void cpu_normal(const Tensor& out, uint64_t seed, uint64_t offset_in, const Tensor& offset_base, double mean,
                double std) {
  const uint64_t offset = with_base(offset_in, offset_base);
  dispatch_float(out.dtype(), "normal_", [&]<class T>() {
    T* p = out.data<T>();
    T m = static_cast<T>(mean), s = static_cast<T>(std);
    parallel_for(out.numel(), 64, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = m + s * philox::normal<T>(seed, offset, i);
    });
  });
}

[[maybe_unused]] const bool random_bound = (uniform_kernel.cpu = cpu_uniform, normal_kernel.cpu = cpu_normal, true);

}  // namespace
}  // namespace hm
