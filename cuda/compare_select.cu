// CUDA kernel of where, which also serves masked_fill (ops/compare_select_kernels.h); the
// comparisons run through the binary kernel (cuda/binary.cu).
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/compare_select_kernels.h"

namespace hm::cuda {
namespace {

template <class B>  // moves bit patterns: one instantiation per element size
struct WhereK {
  const bool* c;
  const B* a;
  const B* b;
  B* out;
  OffsetCalc<4> calc;  // operands (out, cond, a, b)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    out[o.v[0]] = c[o.v[1]] ? a[o.v[2]] : b[o.v[3]];
  }
};

void where(Exec exec, const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  const int device = kernel_device(exec, "where", {&cond, &a, &b, &out});
  check(cond.dtype() == DType::Bool && a.dtype() == out.dtype() && b.dtype() == out.dtype(), "where",
        "operands {}, {}, {} for output {}", cond.desc(), a.desc(), b.desc(), out.desc());
  const OffsetCalc<4> calc =
      make_offset_calc<4>(out.shape(), {&out.strides(), &cond.strides(), &a.strides(), &b.strides()}, "where");
  dispatch_kernel_storage(out.dtype(), "where", [&]<class T>() {
    using B = Bits<T>;
    WhereK<B> k{static_cast<const bool*>(cond.raw_data()), static_cast<const B*>(a.raw_data()),
                static_cast<const B*>(b.raw_data()), static_cast<B*>(out.raw_data()), calc};
    for_each_index(exec, device, out.numel(), k);
  });
}

template <Exec E>
void where_on(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) {
  where(E, c, a, b, out);
}

[[maybe_unused]] const bool bound = bind_cuda(where_kernel, where_on<Exec::Device>, where_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
