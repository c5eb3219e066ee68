// CPU dropout: keep_i = philox uniform(seed, offset, i) >= p (dropout_keep in
// ops/dropout_functors.h), computed here a SIMD batch of Philox blocks at a time
// (ops/cpu/dropout_mask.h), which is exactly the per-element definition the CUDA kernel uses. Backward runs the same
// kernel on the gradient.
#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/dropout_mask.h"
#include "harmonic/ops/dropout_functors.h"
#include "harmonic/ops/dropout_kernels.h"

namespace hm {
namespace {

void cpu_dropout(const Tensor& x, double p, uint64_t seed, uint64_t offset_in, const Tensor& offset_base,
                 const Tensor& out) {
  const uint64_t offset = offset_base.defined() ? offset_in + static_cast<uint64_t>(*offset_base.data<int64_t>()) : offset_in;
  dispatch_floating(x.dtype(), "dropout", [&]<class T>() {
    using C = compute_t<T>;  // float32 for bfloat16, rounded once on the store
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    const int64_t n = x.numel();
    const float pf = static_cast<float>(p);
    const C scale = p < 1.0 ? static_cast<C>(1.0 / (1.0 - p)) : C(0);
    constexpr int64_t kChunk = 256;  // elements per dropout_factors call (a multiple of 4)
    parallel_for((n + kChunk - 1) / kChunk, kChunk * 16, [&](int64_t c0, int64_t c1) {
      C z[kChunk];
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t i0 = c * kChunk, w = std::min<int64_t>(kChunk, n - i0);
        dropout_factors<C>(seed, offset, static_cast<uint64_t>(i0), w, pf, scale, z);
        const T* xi = px + i0;  // locals: through the captures every store would reload them
        T* oi = po + i0;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) oi[j] = convert<T>(z[j] == C(0) ? C(0) : convert<C>(xi[j]) * z[j]);
      }
    });
  });
}

// x + dropout(r): the dropped r goes through the chunk buffer first, so the product is rounded
// before the add (never contracted into an FMA) and the sum is bit for bit dropout then add. R is
// r's type: T's, or bfloat16 beside a float32 x (a bfloat16 branch on a float32 residual).
template <class T, class R>
void dropout_add_rows(const Tensor& x, const Tensor& r, double p, uint64_t seed, uint64_t offset, const Tensor& out) {
  using C = compute_t<T>;
  const T* px = static_cast<const T*>(x.raw_data());
  const R* pr = static_cast<const R*>(r.raw_data());
  T* po = static_cast<T*>(out.raw_data());
  const int64_t n = x.numel();
  const float pf = static_cast<float>(p);
  const C scale = p < 1.0 ? static_cast<C>(1.0 / (1.0 - p)) : C(0);
  constexpr int64_t kChunk = 256;
  parallel_for((n + kChunk - 1) / kChunk, kChunk * 16, [&](int64_t c0, int64_t c1) {
    C z[kChunk];
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t i0 = c * kChunk, w = std::min<int64_t>(kChunk, n - i0);
      dropout_factors<C>(seed, offset, static_cast<uint64_t>(i0), w, pf, scale, z);
      const T* xi = px + i0;
      const R* ri = pr + i0;
      T* oi = po + i0;
      // The dropped r is rounded to R (a no-op but for bfloat16) as dropout's output would be.
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) z[j] = z[j] == C(0) ? C(0) : convert<C>(convert<R>(convert<C>(ri[j]) * z[j]));
#pragma omp simd
      for (int64_t j = 0; j < w; ++j) oi[j] = convert<T>(convert<C>(xi[j]) + z[j]);
    }
  });
}

void cpu_dropout_add(const Tensor& x, const Tensor& r, double p, uint64_t seed, uint64_t offset_in,
                     const Tensor& offset_base, const Tensor& out) {
  const uint64_t offset = offset_base.defined() ? offset_in + static_cast<uint64_t>(*offset_base.data<int64_t>()) : offset_in;
  if (x.dtype() == DType::Float32 && r.dtype() == DType::BFloat16)
    return dropout_add_rows<float, BFloat16>(x, r, p, seed, offset, out);
  dispatch_floating(x.dtype(), "dropout_add",
                    [&]<class T>() { dropout_add_rows<T, T>(x, r, p, seed, offset, out); });
}

[[maybe_unused]] const bool dropout_bound =
    (dropout_kernel.cpu = cpu_dropout, dropout_add_kernel.cpu = cpu_dropout_add, true);

}  // namespace
}  // namespace hm
