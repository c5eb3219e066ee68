// CUDA kernels of logsumexp and p-norms (ops/norms_kernels.h). Each is an op of the block reduction in cuda/device/block_reduce.cuh over the
// contiguous (outer, r, inner) view the op layer builds; the scalar rules are the CPU's
// (ops/reduce_functors.h).
#include <cmath>
#include <limits>

#include "harmonic/cuda/device/block_reduce.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/norms_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm::cuda {
namespace {

// Pass one: the max (NaN skipped by the comparison, as on the CPU), turned into the shift
// (0 when infinite); pass two: sum of exp(x - shift).
template <class T>
struct LogSumExpR {
  using Acc = T;
  static constexpr int kPasses = 2;
  const T* x;
  T* out;
  HM_HD Acc identity(int pass) const { return pass == 0 ? -std::numeric_limits<T>::infinity() : T(0); }
  HM_HD Acc step(int pass, Acc a, int64_t off, int64_t, const Acc* done) const {
    const T v = x[off];
    return pass == 0 ? (v > a ? v : a) : a + CudaMath::exp(v - done[0]);
  }
  HM_HD Acc combine(int pass, Acc a, Acc b) const { return pass == 0 ? (b > a ? b : a) : a + b; }
  HM_HD Acc after_pass(int pass, Acc total) const {
    const T inf = std::numeric_limits<T>::infinity();
    return pass == 0 && (total == inf || total == -inf) ? T(0) : total;
  }
  HM_HD void finish(int64_t o, const Acc* d) const { out[o] = d[0] + CudaMath::log(d[1]); }
};

enum class NormKind : int { Two, One, Zero, P, Max, Min };

template <class T>
struct NormR {
  using Acc = T;
  static constexpr int kPasses = 1;
  const T* x;
  T* out;
  NormKind kind;
  T p;
  HM_HD static T nan() { return std::numeric_limits<T>::quiet_NaN(); }
  HM_HD Acc identity(int) const { return kind == NormKind::Min ? std::numeric_limits<T>::infinity() : T(0); }
  // max / min of |x| with NaN propagating.
  HM_HD Acc extreme(Acc a, Acc b) const {
    if (a != a || b != b) return nan();
    return kind == NormKind::Max ? (a > b ? a : b) : (a < b ? a : b);
  }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t, const Acc*) const {
    const T v = x[off];
    switch (kind) {
      case NormKind::Two:
        return a + v * v;
      case NormKind::One:
        return a + std::fabs(v);
      case NormKind::Zero:
        return a + (v != T(0) ? T(1) : T(0));
      case NormKind::P:
        return a + CudaMath::exp(p * CudaMath::log(std::fabs(v)));  // |v|^p as on the CPU
      default:
        return extreme(std::fabs(v), a);
    }
  }
  HM_HD Acc combine(int, Acc a, Acc b) const {
    return kind == NormKind::Max || kind == NormKind::Min ? extreme(a, b) : a + b;
  }
  HM_HD Acc after_pass(int, Acc a) const { return a; }
  HM_HD void finish(int64_t o, const Acc* d) const {
    out[o] = kind == NormKind::Two ? CudaMath::sqrt(d[0]) : kind == NormKind::P ? CudaMath::pow(d[0], T(1) / p) : d[0];
  }
};

void logsumexp(Exec exec, const Tensor& x, const Tensor& out) {
  const int device = kernel_device(exec, "logsumexp", {&x, &out});
  const ReduceDims d = reduce_dims(x, "logsumexp");
  dispatch_float(x.dtype(), "logsumexp", [&]<class T>() {
    LogSumExpR<T> op{static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data())};
    run_reduce(exec, device, op, reduce_geometry(d.outer, d.r, d.inner), x);
  });
}

void norm(Exec exec, const Tensor& x, double p, const Tensor& out) {
  const int device = kernel_device(exec, "norm", {&x, &out});
  const ReduceDims d = reduce_dims(x, "norm");
  const NormKind kind = p == 2           ? NormKind::Two
                        : p == 1         ? NormKind::One
                        : p == 0         ? NormKind::Zero
                        : !std::isinf(p) ? NormKind::P
                        : p > 0          ? NormKind::Max
                                         : NormKind::Min;
  dispatch_float(x.dtype(), "norm", [&]<class T>() {
    NormR<T> op{static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), kind, static_cast<T>(p)};
    run_reduce(exec, device, op, reduce_geometry(d.outer, d.r, d.inner), x);
  });
}

template <Exec E>
void logsumexp_on(const Tensor& x, const Tensor& o) {
  logsumexp(E, x, o);
}
template <Exec E>
void norm_on(const Tensor& x, double p, const Tensor& o) {
  norm(E, x, p, o);
}

[[maybe_unused]] const bool bound =
    bind_cuda(logsumexp_kernel, logsumexp_on<Exec::Device>, logsumexp_on<Exec::Host>) &&
    bind_cuda(norm_kernel, norm_on<Exec::Device>, norm_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
