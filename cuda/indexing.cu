// CUDA kernels of the gather/scatter family (ops/indexing_kernels.h). Kernels that only move
// elements run on same-size unsigned types (cuda/device/math.cuh Bits), one instantiation per
// element size.
//
// Index bounds: like the CPU kernels, every index is validated before any element moves
// (cuda/device/index_checks.cuh): the same hm::Error as the CPU's, at the cost of a copy back and a
// wait per op, or at the host's next wait inside a DeferredChecks scope; so the kernels skip
// out-of-range indices (a gathered element reads 0, a scattered one is dropped).
//
// scatter_add / index_add accumulate with atomicAdd (float64 needs sm_60+; int64 through
// the unsigned 64-bit atomicAdd, which is two's-complement addition). The order of
// duplicate float contributions is therefore not deterministic on the device; the host
// twin accumulates in row-major order, the CPU kernel's order.
#include <algorithm>
#include <type_traits>

#include "harmonic/cuda/device/index_checks.cuh"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/indexing_kernels.h"

namespace hm::cuda {
namespace {

// The CPU kernels' error (ops/cpu/indexing.cpp check_indices).
void check_indices(Exec exec, int device, std::string_view fn, const Tensor& index, const Shape& shape,
                   const Strides& strides, int64_t size, int64_t dim) {
  check_index_values(exec, device, index, shape, strides, size, std::nullopt, fn, [size, dim](int64_t, int64_t v) {
    return fmt::format("index {} is out of range for dim {} of size {} (valid range [0, {}))", v, dim, size, size);
  });
}

// -- gather, scatter_add, index_add, one_hot ---------------------------------------------------

template <class B>
struct GatherK {
  const B* x;
  const int64_t* index;
  B* out;
  int64_t stride, size;  // x's stride and size along dim
  OffsetCalc<3> calc;    // operands (out, x with stride 0 along dim, index)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    const int64_t v = index[o.v[2]];
    out[o.v[0]] = index_in_range(v, size) ? x[o.v[1] + v * stride] : B(0);
  }
};

void gather(Exec exec, std::string_view fn, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  const int device = kernel_device(exec, fn, {&x, &index, &out});
  const int64_t size = x.shape()[dim];
  check_indices(exec, device, fn, index, out.shape(), index.strides(), size, dim);
  Strides xs = x.strides();
  xs[dim] = 0;  // the index supplies the coordinate along dim
  const OffsetCalc<3> calc = make_offset_calc<3>(out.shape(), {&out.strides(), &xs, &index.strides()}, fn);
  dispatch_all(x.dtype(), fn, [&]<class T>() {
    using B = Bits<T>;
    GatherK<B> k{static_cast<const B*>(x.raw_data()),
                 static_cast<const int64_t*>(index.raw_data()),
                 static_cast<B*>(out.raw_data()),
                 x.strides()[dim],
                 size,
                 calc};
    for_each_index(exec, device, out.numel(), k);
  });
}

template <class T>
HM_HD void atomic_add(T* p, T v) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, int64_t>)
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  else
    atomicAdd(p, v);
#else
  *p += v;
#endif
}

// out[o0 + index[o1] * stride] += src[o2] for every position of the iteration shape.
template <class T>
struct ScatterAddK {
  T* out;
  const int64_t* index;
  const T* src;
  int64_t stride, size;  // out's stride and size along dim
  OffsetCalc<3> calc;    // operands (out with stride 0 along dim, index, src)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    const int64_t v = index[o.v[1]];
    if (index_in_range(v, size)) atomic_add(out + o.v[0] + v * stride, src[o.v[2]]);
  }
};

template <class T>
void run_scatter_add(Exec exec, int device, const Tensor& out, const Tensor& index, const Tensor& src, int64_t stride,
                     int64_t size, const OffsetCalc<3>& calc, int64_t n) {
  ScatterAddK<T> k{static_cast<T*>(out.raw_data()),
                   static_cast<const int64_t*>(index.raw_data()),
                   static_cast<const T*>(src.raw_data()),
                   stride,
                   size,
                   calc};
  for_each_index(exec, device, n, k);
}

void scatter_add(Exec exec, std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index,
                 const Tensor& src) {
  const int device = kernel_device(exec, fn, {&out, &index, &src});
  const int64_t size = out.shape()[dim];
  check_indices(exec, device, fn, index, index.shape(), index.strides(), size, dim);
  Strides os = out.strides();
  os[dim] = 0;
  const OffsetCalc<3> calc = make_offset_calc<3>(index.shape(), {&os, &index.strides(), &src.strides()}, fn);
  dispatch_numeric(out.dtype(), fn, [&]<class T>() {
    run_scatter_add<T>(exec, device, out, index, src, out.strides()[dim], size, calc, index.numel());
  });
}

// index_add is a scatter_add over src (A, K, B) with the 1-d index broadcast: out (A, N, B)
// at (a, index[k], b) += src (a, k, b).
void index_add(Exec exec, std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int device = kernel_device(exec, fn, {&out, &index, &src});
  check(out.is_contiguous() && src.is_contiguous() && index.dim() == 1 && index.is_contiguous(), fn,
        "expected contiguous operands, got {}, {}, {}", out.desc(), index.desc(), src.desc());
  const int64_t N = out.shape()[dim], K = index.numel();
  check_indices(exec, device, fn, index, index.shape(), index.strides(), N, dim);
  int64_t A = 1, B = 1;
  for (int64_t d = 0; d < dim; ++d) A *= out.shape()[d];
  for (int64_t d = dim + 1; d < out.dim(); ++d) B *= out.shape()[d];
  if (A * B * K == 0) return;
  const Shape shape{A, K, B};
  const Strides os{N * B, 0, 1}, is{0, 1, 0}, ss{K * B, B, 1};
  const OffsetCalc<3> calc = make_offset_calc<3>(shape, {&os, &is, &ss}, fn);
  dispatch_numeric(out.dtype(), fn,
                   [&]<class T>() { run_scatter_add<T>(exec, device, out, index, src, B, N, calc, A * K * B); });
}

template <class T>
struct OneHotK {
  const int64_t* index;
  T* out;
  int64_t C;
  HM_HD void operator()(int64_t i) const {
    const int64_t row = i / C;
    out[i] = index[row] == i - row * C ? T(1) : T(0);
  }
};

void one_hot(Exec exec, const Tensor& index, const Tensor& out) {
  const int device = kernel_device(exec, "one_hot", {&index, &out});
  check(index.is_contiguous() && out.is_contiguous(), "one_hot", "expected contiguous operands, got {} and {}",
        index.desc(), out.desc());
  const int64_t C = out.shape().back(), n = index.numel();
  check_index_values(exec, device, index, C, std::nullopt, "one_hot", [C](int64_t position, int64_t v) {
    return fmt::format("class value {} (at flat position {}) is out of range [0, {})", v, position, C);
  });
  dispatch_all(out.dtype(), "one_hot", [&]<class T>() {
    for_each_index(exec, device, n * C,
                   OneHotK<T>{static_cast<const int64_t*>(index.raw_data()), static_cast<T*>(out.raw_data()), C});
  });
}

template <Exec E>
void gather_on(std::string_view fn, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  gather(E, fn, x, dim, index, out);
}
template <Exec E>
void scatter_add_on(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  scatter_add(E, fn, out, dim, index, src);
}
template <Exec E>
void index_add_on(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  index_add(E, fn, out, dim, index, src);
}
template <Exec E>
void one_hot_on(const Tensor& index, const Tensor& out) {
  one_hot(E, index, out);
}

[[maybe_unused]] const bool bound =
    bind_cuda(gather_kernel, gather_on<Exec::Device>, gather_on<Exec::Host>) &&
    bind_cuda(scatter_add_kernel, scatter_add_on<Exec::Device>, scatter_add_on<Exec::Host>) &&
    bind_cuda(index_add_kernel, index_add_on<Exec::Device>, index_add_on<Exec::Host>) &&
    bind_cuda(one_hot_kernel, one_hot_on<Exec::Device>, one_hot_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
