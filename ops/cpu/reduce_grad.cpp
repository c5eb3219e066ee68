// CPU kernel of the elementwise reduction gradients: out = f(x, r, g) with r and g the
// reduction's result and gradient broadcast over the reduced dims. The common layout
// (reduced dims trailing) gives rows where r and g are constant, which vectorise.
#include "harmonic/core/strided_loop.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/reduce_functors.h"
#include "harmonic/ops/reduce_grad_kernels.h"

namespace hm {
namespace {

template <class T, class F>
void grad_rows(const Tensor& x, const Tensor& r, const Tensor& g, const Tensor& out, F f) {
  const T* px = static_cast<const T*>(x.raw_data());
  const T* pr = static_cast<const T*>(r.raw_data());
  const T* pg = static_cast<const T*>(g.raw_data());
  T* po = static_cast<T*>(out.raw_data());
  StridedLoop<4> loop(out.shape(), {out.strides(), x.strides(), r.strides(), g.strides()});
  loop.run([&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
    T* o = po + off[0];
    const T* xs = px + off[1];
    const T* rs = pr + off[2];
    const T* gs = pg + off[3];
    if (st[0] == 1 && st[1] == 1 && st[2] == 0 && st[3] == 0) {
      const T rv = *rs, gv = *gs;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(xs[i], rv, gv);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(xs[i], rs[i], gs[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(xs[i * st[1]], rs[i * st[2]], gs[i * st[3]]);
    }
  });
}

void cpu_reduce_grad(ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g, const Tensor& out) {
  dispatch_float(x.dtype(), "reduce_grad", [&]<class T>() {
    switch (op) {
      case ReduceGradOp::LogSumExp:
        return grad_rows<T>(x, r, g, out, fn::GradLogSumExp<CpuMath>{});
      case ReduceGradOp::Norm:
        if (p == 2) return grad_rows<T>(x, r, g, out, fn::GradNorm2{});
        if (p == 1) return grad_rows<T>(x, r, g, out, fn::GradNorm1{});
        return grad_rows<T>(x, r, g, out, fn::GradNormP<CpuMath>{p});
      case ReduceGradOp::EqMask:
        return grad_rows<T>(x, r, g, out, fn::EqMask{});
      case ReduceGradOp::AbsEqMask:
        return grad_rows<T>(x, r, g, out, fn::AbsEqMask{});
      case ReduceGradOp::AbsEqSign:
        return grad_rows<T>(x, r, g, out, fn::AbsEqSign{});
    }
  });
}

[[maybe_unused]] const bool reduce_grad_bound = (reduce_grad_kernel.cpu = cpu_reduce_grad, true);

}  // namespace
}  // namespace hm
