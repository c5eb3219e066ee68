// CPU dropout: keep_i = philox uniform(seed, offset, i) >= p (dropout_keep in
// ops/nn_functors.h), computed here four elements per Philox block, which is exactly the
// per-element definition the CUDA kernel uses. Backward runs the same kernel on the gradient.
#include "core/parallel.h"
#include "ops/nn_functors.h"
#include "ops/nn_kernels.h"

namespace hm {
namespace {

void cpu_dropout(const Tensor& x, double p, uint64_t seed, uint64_t offset, const Tensor& out) {
  dispatch_float(x.dtype(), "dropout", [&]<class T>() {
    const T* px = x.data<T>();
    T* po = out.data<T>();
    const int64_t n = x.numel(), blocks = (n + 3) / 4;
    const float pf = static_cast<float>(p);
    const T scale = p < 1.0 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
    parallel_for(blocks, 32, [&](int64_t b0, int64_t b1) {
      for (int64_t blk = b0; blk < b1; ++blk) {
        const philox::Block r = philox::generate(seed, offset + static_cast<uint64_t>(blk));
        const int64_t i0 = blk * 4, w = std::min<int64_t>(4, n - i0);
        for (int64_t j = 0; j < w; ++j)
          po[i0 + j] = philox::to_unit_float(r.v[j]) >= pf ? px[i0 + j] * scale : T(0);
      }
    });
  });
}

[[maybe_unused]] const bool bound = (dropout_kernel.cpu = cpu_dropout, true);

}  // namespace
}  // namespace hm
