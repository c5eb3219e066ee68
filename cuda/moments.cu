// CUDA kernel of var/std (ops/moments_kernels.h). Each is an op of the block reduction in cuda/device/block_reduce.cuh over the
// contiguous (outer, r, inner) view the op layer builds; the scalar rules are the CPU's
// (ops/reduce_functors.h).
#include <algorithm>
#include <cmath>

#include "harmonic/cuda/device/block_reduce.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/moments_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm::cuda {
namespace {

// Two passes in double like the CPU kernel: the mean, then the sum of squared deviations.
template <class T>
struct MomentsR {
  using Acc = double;
  static constexpr int kPasses = 2;
  const T* x;
  T* mean;
  T* out;
  double n, denom;
  bool take_sqrt;
  HM_HD Acc identity(int) const { return 0; }
  HM_HD Acc step(int pass, Acc a, int64_t off, int64_t, const Acc* done) const {
    const double v = x[off];
    return pass == 0 ? a + v : a + (v - done[0]) * (v - done[0]);
  }
  HM_HD Acc combine(int, Acc a, Acc b) const { return a + b; }
  HM_HD Acc after_pass(int pass, Acc total) const { return pass == 0 ? total / n : total; }  // done[0] = mean
  HM_HD void finish(int64_t o, const Acc* d) const {
    mean[o] = static_cast<T>(d[0]);
    out[o] = static_cast<T>(take_sqrt ? CudaMath::sqrt(d[1] / denom) : d[1] / denom);
  }
};

void moments(Exec exec, const Tensor& x, int64_t correction, bool take_sqrt, const Tensor& mean, const Tensor& out) {
  const int device = kernel_device(exec, "moments", {&x, &mean, &out});
  const ReduceDims d = reduce_dims(x, "moments");
  // r == 0 gives 0/0 = NaN like PyTorch; r <= correction divides by 0.
  const double n = static_cast<double>(d.r), denom = static_cast<double>(std::max<int64_t>(d.r - correction, 0));
  dispatch_float(x.dtype(), "moments", [&]<class T>() {
    MomentsR<T> op{static_cast<const T*>(x.raw_data()),
                   static_cast<T*>(mean.raw_data()),
                   static_cast<T*>(out.raw_data()),
                   n,
                   denom,
                   take_sqrt};
    run_reduce(exec, device, op, reduce_geometry(d.outer, d.r, d.inner), x);
  });
}

template <Exec E>
void moments_on(const Tensor& x, int64_t c, bool s, const Tensor& m, const Tensor& o) {
  moments(E, x, c, s, m, o);
}

[[maybe_unused]] const bool bound =
    bind_cuda(moments_kernel, moments_on<Exec::Device>, moments_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
