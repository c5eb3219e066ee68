// CUDA kernels core/ needs itself: strided copy with dtype conversion, fill, and the
// Philox uniform / normal draws (the same numbers as the CPU for the same seed and offset).
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"

namespace hm::cuda {
namespace {

// -- copy_ / fill_ -------------------------------------------------------------------------

template <class D, class S>
struct CopyOp {
  D* dst;
  const S* src;
  OffsetCalc<2> calc;  // operands (dst, src)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    dst[o.v[0]] = convert<D>(src[o.v[1]]);
  }
};

template <class T>
struct FillOp {
  T* dst;
  T value;
  OffsetCalc<1> calc;
  HM_HD void operator()(int64_t i) const { dst[calc.get(i).v[0]] = value; }
};

void copy(Exec exec, const Tensor& src, const Tensor& dst) {
  check(src.shape() == dst.shape(), "copy_", "shape mismatch {} vs {}", str(src.shape()), str(dst.shape()));
  const int device = kernel_device(exec, "copy_", {&src, &dst});
  const OffsetCalc<2> calc = make_offset_calc<2>(dst.shape(), {&dst.strides(), &src.strides()}, "copy_");
  dispatch_kernel_storage(dst.dtype(), "copy_", [&]<class D>() {
    dispatch_kernel_storage(src.dtype(), "copy_", [&]<class S>() {
      CopyOp<D, S> op{static_cast<D*>(dst.raw_data()), static_cast<const S*>(src.raw_data()), calc};
      for_each_index(exec, device, dst.numel(), op);
    });
  });
}

void fill(Exec exec, const Tensor& dst, double value) {
  const int device = kernel_device(exec, "fill_", {&dst});
  const OffsetCalc<1> calc = make_offset_calc<1>(dst.shape(), {&dst.strides()}, "fill_");
  dispatch_kernel_storage(dst.dtype(), "fill_", [&]<class T>() {
    FillOp<T> op{static_cast<T*>(dst.raw_data()), convert<T>(value), calc};
    for_each_index(exec, device, dst.numel(), op);
  });
}

// -- random draws ----------------------------------------------------------------------------
// One Philox block per thread: it yields 4 floats or 2 doubles, exactly the elements that
// philox::uniform / philox::normal (core/philox.h) map to that counter.

template <class T>
constexpr int64_t kPerBlock = sizeof(T) == 4 ? 4 : 2;

template <class T>
struct UniformOp {
  T* out;
  int64_t n;
  uint64_t seed, offset;
  const int64_t* base;  // null, or the device value added to offset (a captured draw)
  T low, span;
  HM_HD void operator()(int64_t c) const {
    const uint64_t o = base ? offset + static_cast<uint64_t>(*base) : offset;
    const philox::Block b = philox::generate(seed, o + static_cast<uint64_t>(c));
#pragma unroll
    for (int j = 0; j < kPerBlock<T>; ++j) {
      const int64_t i = c * kPerBlock<T> + j;
      if (i >= n) return;
      T u;
      if constexpr (sizeof(T) == 4)
        u = philox::to_unit_float(b.v[j]);
      else
        u = philox::to_unit_double(b.v[2 * j], b.v[2 * j + 1]);
      out[i] = low + span * u;
    }
  }
};

// Box-Muller exactly as philox::normal: a pair (u1, u2) gives radius * (cos, sin).
template <class T>
struct NormalOp {
  T* out;
  int64_t n;
  uint64_t seed, offset;
  const int64_t* base;  // as UniformOp's
  T mean, stddev;
  HM_HD void write_pair(int64_t i, T u1, T u2) const {
    const T radius = std::sqrt(T(-2) * std::log(T(1) - u1));
    const T angle = T(6.283185307179586) * u2;
    if (i < n) out[i] = mean + stddev * (radius * std::cos(angle));
    if (i + 1 < n) out[i + 1] = mean + stddev * (radius * std::sin(angle));
  }
  HM_HD void operator()(int64_t c) const {
    const uint64_t o = base ? offset + static_cast<uint64_t>(*base) : offset;
    const philox::Block b = philox::generate(seed, o + static_cast<uint64_t>(c));
    if constexpr (sizeof(T) == 4) {
      write_pair(4 * c, philox::to_unit_float(b.v[0]), philox::to_unit_float(b.v[1]));
      write_pair(4 * c + 2, philox::to_unit_float(b.v[2]), philox::to_unit_float(b.v[3]));
    } else {
      write_pair(2 * c, philox::to_unit_double(b.v[0], b.v[1]), philox::to_unit_double(b.v[2], b.v[3]));
    }
  }
};

const int64_t* offset_base_of(const Tensor& offset_base) {
  return offset_base.defined() ? static_cast<const int64_t*>(offset_base.raw_data()) : nullptr;
}

void uniform(Exec exec, const Tensor& out, uint64_t seed, uint64_t offset, const Tensor& offset_base, double low,
             double high) {
  check(out.is_contiguous(), "uniform_", "expected a contiguous output, got {}", out.desc());
  const int device = offset_base.defined() ? kernel_device(exec, "uniform_", {&out, &offset_base})
                                           : kernel_device(exec, "uniform_", {&out});
  dispatch_float(out.dtype(), "uniform_", [&]<class T>() {
    UniformOp<T> op{static_cast<T*>(out.raw_data()), out.numel(), seed, offset, offset_base_of(offset_base),
                    static_cast<T>(low), static_cast<T>(high - low)};
    for_each_index(exec, device, (out.numel() + kPerBlock<T> - 1) / kPerBlock<T>, op);
  });
}

void normal(Exec exec, const Tensor& out, uint64_t seed, uint64_t offset, const Tensor& offset_base, double mean,
            double std) {
  check(out.is_contiguous(), "normal_", "expected a contiguous output, got {}", out.desc());
  const int device = offset_base.defined() ? kernel_device(exec, "normal_", {&out, &offset_base})
                                           : kernel_device(exec, "normal_", {&out});
  dispatch_float(out.dtype(), "normal_", [&]<class T>() {
    NormalOp<T> op{static_cast<T*>(out.raw_data()), out.numel(), seed, offset, offset_base_of(offset_base),
                   static_cast<T>(mean), static_cast<T>(std)};
    for_each_index(exec, device, (out.numel() + kPerBlock<T> - 1) / kPerBlock<T>, op);
  });
}

// -- slot bindings: the device kernels and their host twins -----------------------------------

template <Exec E>
void copy_on(const Tensor& src, const Tensor& dst) {
  copy(E, src, dst);
}
template <Exec E>
void fill_on(const Tensor& dst, double v) {
  fill(E, dst, v);
}
template <Exec E>
void uniform_on(const Tensor& o, uint64_t s, uint64_t off, const Tensor& base, double a, double b) {
  uniform(E, o, s, off, base, a, b);
}
template <Exec E>
void normal_on(const Tensor& o, uint64_t s, uint64_t off, const Tensor& base, double m, double sd) {
  normal(E, o, s, off, base, m, sd);
}

[[maybe_unused]] const bool bound = bind_cuda(copy_kernel, copy_on<Exec::Device>, copy_on<Exec::Host>) &&
                                    bind_cuda(fill_kernel, fill_on<Exec::Device>, fill_on<Exec::Host>) &&
                                    bind_cuda(uniform_kernel, uniform_on<Exec::Device>, uniform_on<Exec::Host>) &&
                                    bind_cuda(normal_kernel, normal_on<Exec::Device>, normal_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
