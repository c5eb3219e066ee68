// CUDA kernel of the elementwise reduction gradients (ops/reduce_grad_kernels.h): maps
// (x, r, g) with the CPU's functors (ops/reduce_functors.h).
#include "harmonic/cuda/device/block_reduce.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/reduce_grad_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm::cuda {
namespace {

template <class T, class F>
struct ReduceGradK {
  F f;
  const T* x;
  const T* r;
  const T* g;
  T* out;
  OffsetCalc<4> calc;  // operands (out, x, r, g); r and g broadcast over the reduced dims
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    out[o.v[0]] = f(x[o.v[1]], r[o.v[2]], g[o.v[3]]);
  }
};

void reduce_grad(Exec exec, ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g,
                 const Tensor& out) {
  const int device = kernel_device(exec, "reduce_grad", {&x, &r, &g, &out});
  check(r.shape() == x.shape() && g.shape() == x.shape() && out.shape() == x.shape(), "reduce_grad",
        "operands {}, {}, {} not expanded to {}", r.desc(), g.desc(), out.desc(), x.desc());
  const OffsetCalc<4> calc =
      make_offset_calc<4>(x.shape(), {&out.strides(), &x.strides(), &r.strides(), &g.strides()}, "reduce_grad");
  dispatch_float(x.dtype(), "reduce_grad", [&]<class T>() {
    auto run = [&](auto f) {
      ReduceGradK<T, decltype(f)> k{f,
                                    static_cast<const T*>(x.raw_data()),
                                    static_cast<const T*>(r.raw_data()),
                                    static_cast<const T*>(g.raw_data()),
                                    static_cast<T*>(out.raw_data()),
                                    calc};
      for_each_index(exec, device, x.numel(), k);
    };
    switch (op) {
      case ReduceGradOp::LogSumExp:
        return run(fn::GradLogSumExp<CudaMath>{});
      case ReduceGradOp::Norm:
        if (p == 2) return run(fn::GradNorm2{});
        if (p == 1) return run(fn::GradNorm1{});
        return run(fn::GradNormP<CudaMath>{p});
      case ReduceGradOp::EqMask:
        return run(fn::EqMask{});
      case ReduceGradOp::AbsEqMask:
        return run(fn::AbsEqMask{});
      case ReduceGradOp::AbsEqSign:
        return run(fn::AbsEqSign{});
    }
  });
}

template <Exec E>
void reduce_grad_on(ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g, const Tensor& o) {
  reduce_grad(E, op, p, x, r, g, o);
}

[[maybe_unused]] const bool bound =
    bind_cuda(reduce_grad_kernel, reduce_grad_on<Exec::Device>, reduce_grad_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
