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

// Elements are read as their compute type (float32 for bfloat16) and rounded once on the store.
template <class Ta, class Tb, class Out, class F>
struct BinaryOpK {
  using C = std::common_type_t<compute_t<Ta>, compute_t<Tb>>;
  F f;
  const Ta* a;
  const Tb* b;
  Out* out;
  OffsetCalc<3> calc;  // operands (out, a, b); a and b arrive expanded (stride 0 = broadcast)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    out[o.v[0]] = convert<Out>(f(convert<C>(a[o.v[1]]), convert<C>(b[o.v[2]])));
  }
};

template <class Ta, class Tb, class Out, class F>
void launch_binary(Exec exec, int device, F f, const Tensor& a, const Tensor& b, const Tensor& out,
                   const OffsetCalc<3>& calc) {
  check(out.dtype() == dtype_of<std::conditional_t<std::is_same_v<Out, Bf16>, BFloat16, Out>>(), "binary",
        "output is {}, expected {}", out.desc(), a.desc());
  BinaryOpK<Ta, Tb, Out, F> k{f, static_cast<const Ta*>(a.raw_data()), static_cast<const Tb*>(b.raw_data()),
                              static_cast<Out*>(out.raw_data()), calc};
  for_each_index(exec, device, out.numel(), k);
}

// Operand dtypes are equal, or bfloat16 with float32 (a float32 result, computed without a
// converted copy of the bfloat16 operand).
void binary(Exec exec, BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  check(a.shape() == out.shape() && b.shape() == out.shape(), "binary", "operands {} and {} not expanded to {}",
        str(a.shape()), str(b.shape()), str(out.shape()));
  const int device = kernel_device(exec, "binary", {&a, &b, &out});
  const OffsetCalc<3> calc = make_offset_calc<3>(out.shape(), {&out.strides(), &a.strides(), &b.strides()}, "binary");
  // float/double/int64/bfloat16 get all 13 functors; bool only the 6 comparisons.
  with_binary_functor(op, [&](auto f) {
    using F = decltype(f);
    constexpr bool comparison = std::is_same_v<decltype(f(0.0f, 0.0f)), bool>;
    if (a.dtype() != b.dtype()) {
      using Out = std::conditional_t<comparison, bool, float>;
      if (a.dtype() == DType::BFloat16 && b.dtype() == DType::Float32)
        launch_binary<Bf16, float, Out>(exec, device, f, a, b, out, calc);
      else if (a.dtype() == DType::Float32 && b.dtype() == DType::BFloat16)
        launch_binary<float, Bf16, Out>(exec, device, f, a, b, out, calc);
      else
        throw_error("binary", fmt::format("no kernel for {} with {}", a.desc(), b.desc()));
      return;
    }
    dispatch_kernel_storage(a.dtype(), "binary", [&]<class T>() {
      using Out = std::conditional_t<comparison, bool, T>;
      if constexpr (std::is_same_v<T, bool> && !comparison)
        throw_error("binary", "arithmetic on bool tensors");
      else
        launch_binary<T, T, Out>(exec, device, f, a, b, out, calc);
    });
  });
}

// -- pow / maximum / minimum backward (broadcast views in, contiguous gradients out) -------------

template <class T, class F>
struct BinaryGradK {
  using C = compute_t<T>;
  F f;
  const T* a;
  const T* b;
  const T* g;
  T* ga;  // null when not wanted
  T* gb;
  OffsetCalc<4> calc;  // operands (ga/gb, a, b, g)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    C da, db;
    f(convert<C>(a[o.v[1]]), convert<C>(b[o.v[2]]), convert<C>(g[o.v[3]]), da, db);
    if (ga) ga[o.v[0]] = convert<T>(da);
    if (gb) gb[o.v[0]] = convert<T>(db);
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
  dispatch_kernel_floating(grad.dtype(), "binary_backward", [&]<class T>() {
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
  using C = compute_t<T>;
  T* x;
  const T* y;
  C alpha;
  OffsetCalc<2> calc;  // operands (x, y)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    x[o.v[0]] = convert<T>(convert<C>(x[o.v[0]]) + alpha * convert<C>(y[o.v[1]]));
  }
};

template <class T>
struct MulInplaceK {
  using C = compute_t<T>;
  T* x;
  C s;
  OffsetCalc<1> calc;
  HM_HD void operator()(int64_t i) const {
    const int64_t o = calc.get(i).v[0];
    x[o] = convert<T>(convert<C>(x[o]) * s);
  }
};

// Numeric dtypes and bfloat16 (computed in float32).
template <class F>
void dispatch_arithmetic(DType t, std::string_view fn, F&& f) {
  if (t == DType::BFloat16) return f.template operator()<Bf16>();
  dispatch_numeric(t, fn, std::forward<F>(f));
}

void add_inplace(Exec exec, const Tensor& x, const Tensor& y, double alpha) {
  const int device = kernel_device(exec, "add_", {&x, &y});
  check(x.shape() == y.shape() && x.dtype() == y.dtype(), "add_", "cannot add {} into {}", y.desc(), x.desc());
  const OffsetCalc<2> calc = make_offset_calc<2>(x.shape(), {&x.strides(), &y.strides()}, "add_");
  dispatch_arithmetic(x.dtype(), "add_", [&]<class T>() {
    using C = compute_t<T>;
    AddInplaceK<T> k{static_cast<T*>(x.raw_data()), static_cast<const T*>(y.raw_data()), static_cast<C>(alpha), calc};
    for_each_index(exec, device, x.numel(), k);
  });
}

void mul_inplace(Exec exec, const Tensor& x, double s) {
  const int device = kernel_device(exec, "mul_", {&x});
  const OffsetCalc<1> calc = make_offset_calc<1>(x.shape(), {&x.strides()}, "mul_");
  dispatch_arithmetic(x.dtype(), "mul_", [&]<class T>() {
    using C = compute_t<T>;
    for_each_index(exec, device, x.numel(), MulInplaceK<T>{static_cast<T*>(x.raw_data()), static_cast<C>(s), calc});
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
