// CUDA kernels of the reductions beyond sum (ops/reduce_kernels.h): max/min with first
// indices, var/std moments, logsumexp and p-norms. Each is an op of the block reduction in
// cuda/block_reduce.cuh over the contiguous (outer, r, inner) view the op layer builds; the
// scalar rules (ties, NaN) are the CPU's (ops/reduce_functors.h).
#include <cmath>
#include <limits>

#include "cuda/block_reduce.cuh"
#include "cuda/emulation.h"
#include "cuda/math.cuh"
#include "ops/reduce_functors.h"
#include "ops/reduce_kernels.h"

namespace hm::cuda {
namespace {

// -- the reductions ------------------------------------------------------------------------------

// max/min and the first k reaching it (NaN wins, ties keep the earliest: fn::extremum_beats).
template <bool IsMax, class T>
struct ExtremaR {
  struct Acc {
    T v;
    int64_t k;  // -1: no element seen
  };
  static constexpr int kPasses = 1;
  const T* x;
  T* values;
  int64_t* indices;  // null when not wanted
  HM_HD Acc identity(int) const { return {T(0), -1}; }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t k, const Acc*) const {
    const T v = x[off];
    return a.k < 0 || fn::extremum_beats<IsMax>(v, a.v) ? Acc{v, k} : a;
  }
  HM_HD Acc combine(int, Acc a, Acc b) const {
    if (b.k < 0) return a;
    if (a.k < 0 || fn::extremum_beats<IsMax>(b.v, a.v)) return b;
    if (fn::extremum_beats<IsMax>(a.v, b.v)) return a;
    return b.k < a.k ? b : a;  // equal (or both NaN): the first index
  }
  HM_HD Acc after_pass(int, Acc a) const { return a; }
  HM_HD void finish(int64_t o, const Acc* d) const {
    values[o] = d[0].v;
    if (indices) indices[o] = d[0].k;
  }
};

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

void extrema(Exec exec, ExtremaOp op, const Tensor& x, const Tensor& values, const Tensor& indices) {
  const int device = kernel_device(exec, "reduce_extrema", {&x, &values});
  const ReduceDims d = reduce_dims(x, "reduce_extrema");
  check(d.r >= 1, "reduce_extrema", "empty reduction");
  if (indices.defined()) kernel_device(exec, "reduce_extrema", {&x, &indices});
  int64_t* pi = indices.defined() ? static_cast<int64_t*>(indices.raw_data()) : nullptr;
  const ReduceGeometry g = reduce_geometry(d.outer, d.r, d.inner);
  dispatch_numeric(x.dtype(), "reduce_extrema", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* pv = static_cast<T*>(values.raw_data());
    if (op == ExtremaOp::Max)
      run_reduce(exec, device, ExtremaR<true, T>{px, pv, pi}, g, x);
    else
      run_reduce(exec, device, ExtremaR<false, T>{px, pv, pi}, g, x);
  });
}

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

// -- slot bindings: the device kernels and their host twins ------------------------------------

template <Exec E>
void extrema_on(ExtremaOp op, const Tensor& x, const Tensor& v, const Tensor& i) {
  extrema(E, op, x, v, i);
}
template <Exec E>
void moments_on(const Tensor& x, int64_t c, bool s, const Tensor& m, const Tensor& o) {
  moments(E, x, c, s, m, o);
}
template <Exec E>
void logsumexp_on(const Tensor& x, const Tensor& o) {
  logsumexp(E, x, o);
}
template <Exec E>
void norm_on(const Tensor& x, double p, const Tensor& o) {
  norm(E, x, p, o);
}

[[maybe_unused]] const bool bound = bind_cuda(extrema_kernel, extrema_on<Exec::Device>, extrema_on<Exec::Host>) &&
                                    bind_cuda(moments_kernel, moments_on<Exec::Device>, moments_on<Exec::Host>) &&
                                    bind_cuda(logsumexp_kernel, logsumexp_on<Exec::Device>, logsumexp_on<Exec::Host>) &&
                                    bind_cuda(norm_kernel, norm_on<Exec::Device>, norm_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
