// CUDA kernels of the binary elementwise family: the forward, one strided kernel template
// instantiated with the shared scalar functors of ops/binary_functors.h (the contiguous case
// skips the index math); the pow/maximum/minimum backward with the CPU's own functors
// (ops/binary_grad_functors.h) and the CudaMath policy; the in-place add_/mul_.
#include <type_traits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/binary_grad_functors.h"
#include "harmonic/ops/binary_kernels.h"

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

// -- pow / maximum / minimum backward (broadcast views in, contiguous gradients out) -------------

template <class T, class F>
struct BinaryGradK {
  F f;
  const T* a;
  const T* b;
  const T* g;
  T* ga;  // null when not wanted
  T* gb;
  OffsetCalc<4> calc;  // operands (ga/gb, a, b, g)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    T da, db;
    f(a[o.v[1]], b[o.v[2]], g[o.v[3]], da, db);
    if (ga) ga[o.v[0]] = da;
    if (gb) gb[o.v[0]] = db;
  }
};

void binary_backward(Exec exec, BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& grad, const Tensor& grad_a,
                     const Tensor& grad_b) {
  check(has_binary_grad_functor(op), "binary_backward", "no derivative functor for binary op {}", static_cast<int>(op));
  const int device = kernel_device(exec, "binary_backward", {&a, &b, &grad});
  const Shape& shape = grad.shape();
  for (const Tensor* t : {&grad_a, &grad_b})
    if (t->defined()) {
      kernel_device(exec, "binary_backward", {&grad, t});
      check(t->is_contiguous() && t->shape() == shape, "binary_backward", "gradient {} for shape {}", t->desc(),
            str(shape));
    }
  const Strides dense = contiguous_strides(shape);
  const OffsetCalc<4> calc =
      make_offset_calc<4>(shape, {&dense, &a.strides(), &b.strides(), &grad.strides()}, "binary_backward");
  dispatch_float(grad.dtype(), "binary_backward", [&]<class T>() {
    T* ga = grad_a.defined() ? static_cast<T*>(grad_a.raw_data()) : nullptr;
    T* gb = grad_b.defined() ? static_cast<T*>(grad_b.raw_data()) : nullptr;
    with_binary_grad_functor(op, [&](auto f) {
      BinaryGradK<T, decltype(f)> k{f,
                                    static_cast<const T*>(a.raw_data()),
                                    static_cast<const T*>(b.raw_data()),
                                    static_cast<const T*>(grad.raw_data()),
                                    ga,
                                    gb,
                                    calc};
      for_each_index(exec, device, grad.numel(), k);
    });
  });
}

// -- in-place updates ----------------------------------------------------------------------------

template <class T>
struct AddInplaceK {
  T* x;
  const T* y;
  T alpha;
  OffsetCalc<2> calc;  // operands (x, y)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    x[o.v[0]] += alpha * y[o.v[1]];
  }
};

template <class T>
struct MulInplaceK {
  T* x;
  T s;
  OffsetCalc<1> calc;
  HM_HD void operator()(int64_t i) const { x[calc.get(i).v[0]] *= s; }
};

void add_inplace(Exec exec, const Tensor& x, const Tensor& y, double alpha) {
  const int device = kernel_device(exec, "add_", {&x, &y});
  check(x.shape() == y.shape() && x.dtype() == y.dtype(), "add_", "cannot add {} into {}", y.desc(), x.desc());
  const OffsetCalc<2> calc = make_offset_calc<2>(x.shape(), {&x.strides(), &y.strides()}, "add_");
  dispatch_numeric(x.dtype(), "add_", [&]<class T>() {
    AddInplaceK<T> k{static_cast<T*>(x.raw_data()), static_cast<const T*>(y.raw_data()), static_cast<T>(alpha), calc};
    for_each_index(exec, device, x.numel(), k);
  });
}

void mul_inplace(Exec exec, const Tensor& x, double s) {
  const int device = kernel_device(exec, "mul_", {&x});
  const OffsetCalc<1> calc = make_offset_calc<1>(x.shape(), {&x.strides()}, "mul_");
  dispatch_numeric(x.dtype(), "mul_", [&]<class T>() {
    for_each_index(exec, device, x.numel(), MulInplaceK<T>{static_cast<T*>(x.raw_data()), static_cast<T>(s), calc});
  });
}

template <Exec E>
void binary_on(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  binary(E, op, a, b, out);
}

template <Exec E>
void binary_backward_on(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& g, const Tensor& ga,
                        const Tensor& gb) {
  binary_backward(E, op, a, b, g, ga, gb);
}

template <Exec E>
void add_inplace_on(const Tensor& x, const Tensor& y, double alpha) {
  add_inplace(E, x, y, alpha);
}
template <Exec E>
void mul_inplace_on(const Tensor& x, double s) {
  mul_inplace(E, x, s);
}

[[maybe_unused]] const bool bound =
    bind_cuda(binary_kernel, binary_on<Exec::Device>, binary_on<Exec::Host>) &&
    bind_cuda(binary_backward_kernel, binary_backward_on<Exec::Device>, binary_backward_on<Exec::Host>) &&
    bind_cuda(add_inplace_kernel, add_inplace_on<Exec::Device>, add_inplace_on<Exec::Host>) &&
    bind_cuda(mul_inplace_kernel, mul_inplace_on<Exec::Device>, mul_inplace_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
