// CUDA kernels of the elementwise family beyond the binary ops (ops/unary_kernels.h): the
// unary ops and their fused backward, the pow/maximum/minimum backward, where and the
// in-place add_/mul_. The scalar math is the CPU's own functors (ops/unary_functors.h,
// ops/binary_grad_functors.h) with the CudaMath policy, so the two backends share formulas,
// edge cases and PyTorch conventions; only the libm underneath differs.
#include <type_traits>

#include "cuda/emulation.h"
#include "cuda/launch.cuh"
#include "cuda/math.cuh"
#include "ops/binary_grad_functors.h"
#include "ops/unary_kernels.h"

namespace hm::cuda {
namespace {

// -- unary forward / backward (contiguous operands) --------------------------------------------

template <class T, class Out, class F>
struct MapK {
  F f;
  const T* x;
  Out* out;
  HM_HD void operator()(int64_t i) const { out[i] = f(x[i]); }
};

struct LogicalNotF {
  template <class T>
  HM_HD bool operator()(T v) const {
    return !(v != T(0));
  }
};

// x^e with the CPU kernel's special cases (ops/cpu/unary.cpp pow_fast_path): the exact forms
// PyTorch uses too, and they differ from pow() at the edges (sqrt(-inf) is NaN, pow is inf).
struct PowScalarF {
  int kind;  // 0: x^2, 1: x^3, 2: x, 3: sqrt, 4: rsqrt, 5: 1/x, 6: 1/x^2, else pow
  double e;
  template <class T>
  HM_HD T operator()(T v) const {
    switch (kind) {
      case 0:
        return v * v;
      case 1:
        return v * v * v;
      case 2:
        return v;
      case 3:
        return CudaMath::sqrt(v);
      case 4:
        return T(1) / CudaMath::sqrt(v);
      case 5:
        return T(1) / v;
      case 6:
        return T(1) / (v * v);
      default:
        return CudaMath::pow(v, T(e));
    }
  }
};

int pow_kind(double e) {
  const double special[] = {2, 3, 1, 0.5, -0.5, -1, -2};
  for (int k = 0; k < 7; ++k)
    if (e == special[k]) return k;
  return 7;
}

void unary(Exec exec, UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p) {
  const int device = kernel_device(exec, unary_name(op), {&x, &out});
  check(x.is_contiguous() && out.is_contiguous() && x.numel() == out.numel(), unary_name(op),
        "expected contiguous operands of one size, got {} and {}", x.desc(), out.desc());
  const int64_t n = x.numel();
  dispatch_all(x.dtype(), unary_name(op), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    if (op == UnaryOp::LogicalNot) {
      check(out.dtype() == DType::Bool, "logical_not", "output must be bool, got {}", out.desc());
      for_each_index(exec, device, n, MapK<T, bool, LogicalNotF>{{}, px, static_cast<bool*>(out.raw_data())});
      return;
    }
    check(out.dtype() == x.dtype(), unary_name(op), "output {} for input {}", out.desc(), x.desc());
    T* po = static_cast<T*>(out.raw_data());
    if constexpr (std::is_floating_point_v<T>) {
      if (op == UnaryOp::PowScalar) {
        for_each_index(exec, device, n, MapK<T, T, PowScalarF>{{pow_kind(p.a), p.a}, px, po});
        return;
      }
      with_unary_functor<CudaMath>(op, p, [&](auto f) {
        for_each_index(exec, device, n, MapK<T, T, decltype(f)>{f, px, po});
      });
    } else if constexpr (std::is_same_v<T, int64_t>) {
      if (op == UnaryOp::Neg)
        for_each_index(exec, device, n, MapK<T, T, ufn::Neg>{{}, px, po});
      else if (op == UnaryOp::Abs)
        for_each_index(exec, device, n, MapK<T, T, ufn::Abs>{{}, px, po});
      else
        throw_error(unary_name(op), "expected a floating-point tensor, got int64");
    } else {
      throw_error(unary_name(op), "expected a floating-point tensor, got bool");
    }
  });
}

template <class T, class F>
struct UnaryGradK {
  F f;
  const T* s;  // x or y as unary_saves says (g itself when nothing is saved)
  const T* g;
  T* gi;
  HM_HD void operator()(int64_t i) const { gi[i] = f.grad(s[i], g[i]); }
};

void unary_backward(Exec exec, UnaryOp op, const Tensor& saved, const Tensor& grad, const Tensor& grad_in,
                    UnaryParams p) {
  const int device = saved.defined() ? kernel_device(exec, unary_name(op), {&saved, &grad, &grad_in})
                                     : kernel_device(exec, unary_name(op), {&grad, &grad_in});
  check(grad.is_contiguous() && grad_in.is_contiguous() && (!saved.defined() || saved.is_contiguous()), unary_name(op),
        "expected contiguous operands, got {} and {}", grad.desc(), grad_in.desc());
  dispatch_float(grad.dtype(), unary_name(op), [&]<class T>() {
    const T* g = static_cast<const T*>(grad.raw_data());
    const T* s = saved.defined() ? static_cast<const T*>(saved.raw_data()) : g;
    T* gi = static_cast<T*>(grad_in.raw_data());
    with_unary_functor<CudaMath>(op, p, [&](auto f) {
      for_each_index(exec, device, grad.numel(), UnaryGradK<T, decltype(f)>{f, s, g, gi});
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

// -- where ---------------------------------------------------------------------------------------

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
  dispatch_all(out.dtype(), "where", [&]<class T>() {
    using B = Bits<T>;
    WhereK<B> k{static_cast<const bool*>(cond.raw_data()), static_cast<const B*>(a.raw_data()),
                static_cast<const B*>(b.raw_data()), static_cast<B*>(out.raw_data()), calc};
    for_each_index(exec, device, out.numel(), k);
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

// -- slot bindings: the device kernels and their host twins ------------------------------------

template <Exec E>
void unary_on(UnaryOp op, const Tensor& x, const Tensor& out, UnaryParams p) {
  unary(E, op, x, out, p);
}
template <Exec E>
void unary_backward_on(UnaryOp op, const Tensor& s, const Tensor& g, const Tensor& gi, UnaryParams p) {
  unary_backward(E, op, s, g, gi, p);
}
template <Exec E>
void binary_backward_on(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& g, const Tensor& ga,
                        const Tensor& gb) {
  binary_backward(E, op, a, b, g, ga, gb);
}
template <Exec E>
void where_on(const Tensor& c, const Tensor& a, const Tensor& b, const Tensor& out) {
  where(E, c, a, b, out);
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
    bind_cuda(unary_kernel, unary_on<Exec::Device>, unary_on<Exec::Host>) &&
    bind_cuda(unary_backward_kernel, unary_backward_on<Exec::Device>, unary_backward_on<Exec::Host>) &&
    bind_cuda(binary_backward_kernel, binary_backward_on<Exec::Device>, binary_backward_on<Exec::Host>) &&
    bind_cuda(where_kernel, where_on<Exec::Device>, where_on<Exec::Host>) &&
    bind_cuda(add_inplace_kernel, add_inplace_on<Exec::Device>, add_inplace_on<Exec::Host>) &&
    bind_cuda(mul_inplace_kernel, mul_inplace_on<Exec::Device>, mul_inplace_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
