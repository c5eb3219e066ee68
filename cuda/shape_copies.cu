// CUDA kernels of flip and tril/triu (ops/shape_copies_kernels.h). Kernels that only move
// elements run on same-size unsigned types (cuda/device/math.cuh Bits), one instantiation per
// element size.
#include <algorithm>
#include <type_traits>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/shape_copies_kernels.h"

namespace hm::cuda {
namespace {

// -- flip ----------------------------------------------------------------------------------------

template <class B>
struct CopyK {
  const B* src;
  B* dst;
  OffsetCalc<2> calc;  // operands (dst, src)
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    dst[o.v[0]] = src[o.v[1]];
  }
};

// out[c] = x[c mirrored on `dims`]: x read from its last element along the flipped dims with
// negated strides, so the offset calculator merges flipped and unflipped runs of dims.
void flip(Exec exec, const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  const int device = kernel_device(exec, "flip", {&x, &out});
  check(x.is_contiguous() && out.is_contiguous() && x.shape() == out.shape() && x.dtype() == out.dtype(), "flip",
        "expected contiguous {} and output of the same shape, got {}", x.desc(), out.desc());
  if (x.numel() == 0) return;
  Strides src = x.strides();
  int64_t start = 0;
  for (int64_t d : dims) {
    start += (x.shape()[d] - 1) * src[d];
    src[d] = -src[d];
  }
  const OffsetCalc<2> calc = make_offset_calc<2>(x.shape(), {&out.strides(), &src}, "flip");
  dispatch_all(x.dtype(), "flip", [&]<class T>() {
    using B = Bits<T>;
    CopyK<B> k{static_cast<const B*>(x.raw_data()) + start, static_cast<B*>(out.raw_data()), calc};
    for_each_index(exec, device, x.numel(), k);
  });
}

// -- tril / triu ---------------------------------------------------------------------------------

template <class B>
struct TriangleK {
  const B* x;
  B* out;
  int64_t R, C, diagonal;
  bool upper, use32;
  FastDivmod by_c, by_r;
  HM_HD void operator()(int64_t i) const {
    int64_t row, col;
    if (use32) {
      const uint32_t q = by_c.div(static_cast<uint32_t>(i));
      col = i - int64_t{q} * C;
      row = q - int64_t{by_r.div(q)} * R;
    } else {
      col = i % C;
      row = (i / C) % R;
    }
    // tril keeps columns j <= i + diagonal, triu keeps j >= i + diagonal.
    const bool keep = upper ? col >= row + diagonal : col <= row + diagonal;
    out[i] = keep ? x[i] : B(0);  // all-zero bits: +0 in every dtype
  }
};

void triangle(Exec exec, const Tensor& x, int64_t diagonal, bool upper, const Tensor& out) {
  const int device = kernel_device(exec, "triangle", {&x, &out});
  check(x.dim() >= 2 && x.is_contiguous() && out.is_contiguous() && x.shape() == out.shape(), "triangle",
        "expected contiguous (..., R, C) {} and output of the same shape, got {}", x.desc(), out.desc());
  if (x.numel() == 0) return;
  const int64_t R = x.shape()[x.dim() - 2], C = x.shape()[x.dim() - 1];
  const bool use32 = x.numel() <= INT32_MAX && !force_64bit_indexing();
  dispatch_all(x.dtype(), "triangle", [&]<class T>() {
    using B = Bits<T>;
    TriangleK<B> k{static_cast<const B*>(x.raw_data()),
                   static_cast<B*>(out.raw_data()),
                   R,
                   C,
                   diagonal,
                   upper,
                   use32,
                   use32 ? FastDivmod(static_cast<uint32_t>(C)) : FastDivmod(),
                   use32 ? FastDivmod(static_cast<uint32_t>(R)) : FastDivmod()};
    for_each_index(exec, device, x.numel(), k);
  });
}

template <Exec E>
void flip_on(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  flip(E, x, dims, out);
}
template <Exec E>
void triangle_on(const Tensor& x, int64_t diagonal, bool upper, const Tensor& out) {
  triangle(E, x, diagonal, upper, out);
}

[[maybe_unused]] const bool bound =
    bind_cuda(flip_kernel, flip_on<Exec::Device>, flip_on<Exec::Host>) &&
    bind_cuda(triangle_kernel, triangle_on<Exec::Device>, triangle_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
