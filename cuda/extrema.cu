// CUDA kernel of amax/amin/max/min/argmax/argmin (ops/extrema_kernels.h): max/min with the
// first indices (ties, NaN as on the CPU). Each is an op of the block reduction in cuda/device/block_reduce.cuh over the
// contiguous (outer, r, inner) view the op layer builds; the scalar rules are the CPU's
// (ops/reduce_functors.h).
#include "harmonic/cuda/device/block_reduce.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/extrema_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm::cuda {
namespace {

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

template <Exec E>
void extrema_on(ExtremaOp op, const Tensor& x, const Tensor& v, const Tensor& i) {
  extrema(E, op, x, v, i);
}

[[maybe_unused]] const bool bound =
    bind_cuda(extrema_kernel, extrema_on<Exec::Device>, extrema_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
