// CUDA kernel of the binary elementwise family: one strided kernel template instantiated
// with the shared scalar functors of ops/binary_functors.h, so the CPU and CUDA math are
// the same code. The contiguous case skips the index math.
#include <type_traits>

#include "cuda/emulation.h"
#include "cuda/launch.cuh"
#include "ops/kernels.h"

namespace hm::cuda {
namespace {

template <class T, class Out, class F>
struct BinaryOpK {
  F f;
  const T* a;
  const T* b;
  Out* out;
  OffsetCalc<3> calc;  // operands (out, a, b); a and b arrive expanded (stride 0 = broadcast)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    out[o.v[0]] = f(a[o.v[1]], b[o.v[2]]);
  }
};

void binary(Exec exec, BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.shape() == out.shape() && b.shape() == out.shape(), "binary", "operands {} and {} not expanded to {}",
        str(a.shape()), str(b.shape()), str(out.shape()));
  const int device = kernel_device(exec, "binary", {&a, &b, &out});
  const OffsetCalc<3> calc = make_offset_calc<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()}, "binary");
  // float/double/int64 get all 13 functors; bool only the 6 comparisons.
  dispatch_all(a.dtype(), "binary", [&]<class T>() {
    with_binary_functor(op, [&](auto f) {
      using F = decltype(f);
      constexpr bool comparison = std::is_same_v<decltype(f(0.0f, 0.0f)), bool>;
      using Out = std::conditional_t<comparison, bool, T>;
      if constexpr (std::is_same_v<T, bool> && !comparison) {
        throw_error("binary", "arithmetic on bool tensors");
      } else {
        check(out.dtype() == dtype_of<Out>(), "binary", "output is {}, expected {}", out.desc(),
              dtype_name(dtype_of<Out>()));
        BinaryOpK<T, Out, F> k{f, static_cast<const T*>(a.raw_data()), static_cast<const T*>(b.raw_data()),
                               static_cast<Out*>(out.raw_data()), calc};
        for_each_index(exec, device, out.numel(), k);
      }
    });
  });
}

template <Exec E>
void binary_on(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  binary(E, op, a, b, out);
}

[[maybe_unused]] const bool bound = bind_cuda(binary_kernel, binary_on<Exec::Device>, binary_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
