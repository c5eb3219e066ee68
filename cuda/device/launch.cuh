// Shared machinery of the CUDA kernels: launch geometry, strided offsets with fast 32-bit
// division, device-side bfloat16 and dtype conversions, and the host twin.
//
// Every kernel body is an HM_HD functor run either by a grid-stride CUDA kernel
// (Exec::Device) or by a plain loop over the same functor on CPU memory (Exec::Host). The
// host twin lets machines without a GPU test the index math, conversions and work split
// of the device code (cuda/runtime/emulation.h); only the launch itself stays unverified there.
//
// Adding a CUDA kernel for a slot (see cuda/binary.cu, the smallest example):
//   1. an HM_HD functor with operator()(int64_t i) const, holding raw pointers and an
//      OffsetCalc<N> from make_offset_calc (it must stay trivially copyable);
//   2. a host function (Exec exec, tensors...) that checks devices with kernel_device,
//      dispatches dtypes and calls for_each_index(exec, device, n, functor);
//   3. bind_cuda(slot, fn<Exec::Device>, fn<Exec::Host>) at static initialisation;
//   4. a "[cuda]" test with check_against_cpu (tests/device_harness.h).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harmonic/core/host_device.h"
#include "harmonic/core/tensor.h"
#include "harmonic/cuda/device/check.cuh"
#include "harmonic/cuda/device/context.cuh"

namespace hm::cuda {

constexpr int kMaxDims = 8;    // dims an offset calculator holds after merging
constexpr int kThreads = 256;  // threads per block of the elementwise kernels

enum class Exec { Device, Host };

// Test hook (cuda/runtime/emulation.h): use 64-bit index math even for small tensors.
bool force_64bit_indexing();

HM_HD uint32_t mulhi32(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// n / d for a fixed d by a multiply-high and a shift (Granlund & Montgomery, as PyTorch's
// IntDivider): exact for n, d < 2^31, and several times cheaper than a hardware divide.
struct FastDivmod {
  uint32_t divisor = 1, magic = 1, shift = 0;
  FastDivmod() = default;
  explicit FastDivmod(uint32_t d) : divisor(d) {
    while ((uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  HM_HD uint32_t div(uint32_t n) const { return (mulhi32(n, magic) + n) >> shift; }
};

// Element offsets of N operands that share one shape, for row-major linear index i. Dims
// are merged like core/strided_loop.h and stored innermost first.
template <int N>
struct OffsetCalc {
  struct Offsets {
    int64_t v[N];
  };
  int ndim = 0;
  bool use32 = true;        // numel < 2^31: divide with FastDivmod
  bool contiguous = false;  // every operand's offset is i itself
  int64_t sizes[kMaxDims] = {};
  FastDivmod divs[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};

  HM_HD Offsets get(int64_t i) const {
    Offsets o;
#pragma unroll
    for (int k = 0; k < N; ++k) o.v[k] = contiguous ? i : 0;
    if (contiguous) return o;
    if (use32) {
      uint32_t r = static_cast<uint32_t>(i);
#pragma unroll
      for (int d = 0; d < kMaxDims; ++d) {
        if (d == ndim) break;
        const uint32_t q = divs[d].div(r);
        const int64_t idx = r - q * divs[d].divisor;
        r = q;
#pragma unroll
        for (int k = 0; k < N; ++k) o.v[k] += idx * strides[d][k];
      }
    } else {
      int64_t r = i;
#pragma unroll
      for (int d = 0; d < kMaxDims; ++d) {
        if (d == ndim) break;
        const int64_t q = r / sizes[d];
        const int64_t idx = r - q * sizes[d];
        r = q;
#pragma unroll
        for (int k = 0; k < N; ++k) o.v[k] += idx * strides[d][k];
      }
    }
    return o;
  }
};

// Host side: merges dims (drop size-1 dims, join neighbours contiguous for every operand).
template <int N>
OffsetCalc<N> make_offset_calc(const Shape& shape, const std::array<const Strides*, N>& strides, std::string_view fn) {
  if (numel_of(shape) == 0) return {};  // nothing will run (and FastDivmod(0) would divide by 0)
  std::vector<int64_t> sizes;           // outermost first
  std::vector<std::array<int64_t, N>> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!sizes.empty()) {
      bool mergeable = true;
      for (int k = 0; k < N; ++k) mergeable = mergeable && st.back()[k] == (*strides[k])[d] * shape[d];
      if (mergeable) {
        sizes.back() *= shape[d];
        for (int k = 0; k < N; ++k) st.back()[k] = (*strides[k])[d];
        continue;
      }
    }
    sizes.push_back(shape[d]);
    st.emplace_back();
    for (int k = 0; k < N; ++k) st.back()[k] = (*strides[k])[d];
  }
  check(sizes.size() <= static_cast<size_t>(kMaxDims), fn,
        "CUDA kernels take at most {} dims after merging contiguous ones, got shape {}", kMaxDims, str(shape));
  OffsetCalc<N> c;
  c.ndim = static_cast<int>(sizes.size());
  c.use32 = numel_of(shape) <= INT32_MAX && !force_64bit_indexing();
  c.contiguous = c.ndim == 0;
  if (c.ndim == 1) {
    c.contiguous = true;
    for (int k = 0; k < N; ++k) c.contiguous = c.contiguous && st[0][k] == 1;
  }
  for (int d = 0; d < c.ndim; ++d) {
    const size_t src = sizes.size() - 1 - d;
    c.sizes[d] = sizes[src];
    if (c.use32) c.divs[d] = FastDivmod(static_cast<uint32_t>(sizes[src]));
    for (int k = 0; k < N; ++k) c.strides[d][k] = st[src][k];
  }
  return c;
}

// -- launching ----------------------------------------------------------------------------

template <class Op>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(Op op, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) op(i);
}

// Enough blocks to fill the device a few times over; a grid-stride loop does the rest.
inline int elementwise_blocks(int64_t n, int device) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::min<int64_t>(blocks, int64_t{sm_count(device)} * 16));
}

// Runs op(i) for every i in [0, n): as a kernel on `device`'s stream, or as a host loop.
template <class Op>
void for_each_index(Exec exec, int device, int64_t n, const Op& op) {
  static_assert(std::is_trivially_copyable_v<Op>, "kernel functors are copied to the device");
  if (n <= 0) return;
  if (exec == Exec::Host) {
    for (int64_t i = 0; i < n; ++i) op(i);
    return;
  }
  DeviceGuard guard(device);
  elementwise_kernel<<<elementwise_blocks(n, device), kThreads, 0, stream(device)>>>(op, n);
  HM_CUDA_CHECK_LAUNCH();
}

// The device of a kernel's tensors: CUDA for the kernel; for the host twin, the CPU (twin
// tests) or the emulated device (cuda/runtime/emulation.h).
inline int kernel_device(Exec exec, std::string_view fn, std::initializer_list<const Tensor*> tensors) {
  const Device first = (*tensors.begin())->device();
  const bool host_memory = first.is_cpu() || cuda_emulated();
  for (const Tensor* t : tensors)
    check(t->device() == first && (exec == Exec::Device ? t->device().is_cuda() : host_memory), fn,
          "tensors on {} and {} ({} kernel)", first.str(), t->device().str(),
          exec == Exec::Device ? "CUDA" : "host-twin");
  return first.index;
}

// -- element types ------------------------------------------------------------------------

// bfloat16 in kernels: the bits of hm::BFloat16, with conversions that work on the device.
struct Bf16 {
  uint16_t bits;
};

HM_HD float bits_to_float(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

HM_HD uint32_t float_to_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

// Round to nearest even, any NaN to 0x7fc0: bit-identical to hm::BFloat16(float).
HM_HD Bf16 to_bf16(float f) {
  uint32_t u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {0x7fc0};
  u += 0x7fffu + ((u >> 16) & 1u);
  return {static_cast<uint16_t>(u >> 16)};
}
HM_HD float from_bf16(Bf16 x) { return bits_to_float(static_cast<uint32_t>(x.bits) << 16); }

}  // namespace hm::cuda

// Kernels compute bfloat16 elements in float32, as on the CPU (core/dtype.h).
template <> struct hm::compute_type<hm::cuda::Bf16> { using type = float; };

namespace hm::cuda {

// The conversion rules of core/dtype.h (hm::convert), with kernel-side bfloat16.
template <class To, class From>
HM_HD To convert(From x) {
  if constexpr (std::is_same_v<To, From>)
    return x;
  else if constexpr (std::is_same_v<From, Bf16>)
    return convert<To>(from_bf16(x));
  else if constexpr (std::is_same_v<To, Bf16>)
    return to_bf16(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, bool>)
    return x != From(0);
  else
    return static_cast<To>(x);
}

// Float32, float64 and bfloat16 with kernel-side types (hm::dispatch_floating's twin).
template <class F>
decltype(auto) dispatch_kernel_floating(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32:
      return f.template operator()<float>();
    case DType::Float64:
      return f.template operator()<double>();
    case DType::BFloat16:
      return f.template operator()<Bf16>();
    default:
      throw_error(fn, fmt::format("expected a float32, float64 or bfloat16 tensor, got {}", dtype_name(t)));
  }
}

// Like dispatch_all plus bfloat16, with kernel-side types.
template <class F>
decltype(auto) dispatch_kernel_storage(DType t, std::string_view fn, F&& f) {
  switch (t) {
    case DType::Float32:
      return f.template operator()<float>();
    case DType::Float64:
      return f.template operator()<double>();
    case DType::Int64:
      return f.template operator()<int64_t>();
    case DType::Bool:
      return f.template operator()<bool>();
    case DType::BFloat16:
      return f.template operator()<Bf16>();
    default:
      throw_error(fn, fmt::format("no CUDA kernel for dtype {}", dtype_name(t)));
  }
}

}  // namespace hm::cuda
