// CPU layer norm and RMS norm over rows of D elements. Forward is one fused row pass
// (statistics in registers, then the normalised, scaled row). Backward computes dx row by
// row and accumulates dweight/dbias into a fixed number of row-block partials, summed at
// the end in a fixed order: no atomics, and the result does not depend on the thread count.
//   layer norm: xhat = (x - mean) rstd,  dx = rstd (gw - mean(gw) - xhat mean(gw xhat)),  gw = g w
//   RMS norm:   xhat = x rstd,           dx = rstd (gw - xhat mean(gw xhat))
// bfloat16 rows (float32 weight, bias and statistics) are widened to float32, run through the
// float32 kernels and rounded once: the CPU's bfloat16 is there to check the CUDA kernels.
#include <cmath>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/normalization_kernels.h"

namespace hm {
namespace {

template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

// A float32 copy of a bfloat16 tensor (undefined stays undefined).
Tensor widened(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor w = Tensor::empty(t.shape(), DType::Float32, t.device());
  copy_kernel.cpu(t, w);
  return w;
}

Tensor float32_like(const Tensor& t) {
  return t.defined() ? Tensor::empty(t.shape(), DType::Float32, t.device()) : t;
}

// dst = src rounded to dst's dtype, when dst is defined.
void round_into(const Tensor& src, const Tensor& dst) {
  if (dst.defined()) copy_kernel.cpu(src, dst);
}

// The residual sum of bfloat16 rows, rounded as the add kernel rounds it.
void add_rounded(const Tensor& x, const Tensor& r, const Tensor& sum) {
  const BFloat16 *px = static_cast<const BFloat16*>(x.raw_data()), *pr = static_cast<const BFloat16*>(r.raw_data());
  BFloat16* ps = static_cast<BFloat16*>(sum.raw_data());
  parallel_for(x.numel(), 2, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) ps[i] = BFloat16(static_cast<float>(px[i]) + static_cast<float>(pr[i]));
  });
}

// -- forward ----------------------------------------------------------------------------------

// The sum of f(x[i]) over a row in kSumLanes independent partial sums: one SIMD accumulator
// would chain every add on the previous one (an add's latency per vector); these chains overlap.
constexpr int64_t kSumLanes = 32;
template <class T, class F>
T row_sum(const T* x, int64_t n, F f) {
  T acc[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
#pragma omp simd
    for (int64_t k = 0; k < kSumLanes; ++k) acc[k] += f(x[i + k]);
  T s = 0;
  for (; i < n; ++i) s += f(x[i]);
  for (int64_t k = 0; k < kSumLanes; ++k) s += acc[k];
  return s;
}

template <class T>
void layer_norm_row(const T* x, const T* w, const T* b, T eps, int64_t n, T* y, T& mean_out, T& rstd_out) {
  const T mean = row_sum(x, n, [](T v) { return v; }) / static_cast<T>(n);
  const T v = row_sum(x, n, [mean](T xi) { return (xi - mean) * (xi - mean); });
  const T rstd = T(1) / std::sqrt(v / static_cast<T>(n) + eps);
  if (w && b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
  } else if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i];
  } else if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd;
  }
  mean_out = mean, rstd_out = rstd;
}

void cpu_layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                    const Tensor& mean, const Tensor& rstd) {
  if (x.dtype() == DType::BFloat16) {
    const Tensor y = float32_like(out);
    cpu_layer_norm(widened(x), weight, bias, eps, y, mean, rstd);
    return round_into(y, out);
  }
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "layer_norm", [&]<class T>() {
    const T *px = x.data<T>(), *w = data_or_null<T>(weight), *b = data_or_null<T>(bias);
    T *py = out.data<T>(), *pm = mean.data<T>(), *pr = rstd.data<T>();
    parallel_for(rows, 4 * n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        layer_norm_row(px + r * n, w, b, static_cast<T>(eps), n, py + r * n, pm[r], pr[r]);
    });
  });
}

// The residual add writes its row of the sum, which layer_norm_row then reads as x: the same
// arithmetic as the add kernel followed by the layer_norm kernel.
void cpu_add_layer_norm(const Tensor& x, const Tensor& r, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& sum, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  if (x.dtype() == DType::BFloat16) {
    add_rounded(x, r, sum);
    return cpu_layer_norm(sum, weight, bias, eps, out, mean, rstd);
  }
  if (r.dtype() != x.dtype()) return cpu_add_layer_norm(x, widened(r), weight, bias, eps, sum, out, mean, rstd);
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "add_layer_norm", [&]<class T>() {
    const T *px = x.data<T>(), *pr = r.data<T>(), *w = data_or_null<T>(weight), *b = data_or_null<T>(bias);
    T *ps = sum.data<T>(), *py = out.data<T>(), *pm = mean.data<T>(), *prs = rstd.data<T>();
    parallel_for(rows, 5 * n, [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const T *xi = px + row * n, *ri = pr + row * n;
        T* si = ps + row * n;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) si[i] = xi[i] + ri[i];
        layer_norm_row(si, w, b, static_cast<T>(eps), n, py + row * n, pm[row], prs[row]);
      }
    });
  });
}

template <class T>
void rms_norm_row(const T* x, const T* w, T eps, int64_t n, T* y, T& rstd_out) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += x[i] * x[i];
  const T rstd = T(1) / std::sqrt(s / static_cast<T>(n) + eps);
  if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * rstd * w[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * rstd;
  }
  rstd_out = rstd;
}

void cpu_rms_norm(const Tensor& x, const Tensor& weight, double eps, const Tensor& out, const Tensor& rstd) {
  if (x.dtype() == DType::BFloat16) {
    const Tensor y = float32_like(out);
    cpu_rms_norm(widened(x), weight, eps, y, rstd);
    return round_into(y, out);
  }
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "rms_norm", [&]<class T>() {
    const T *px = x.data<T>(), *w = data_or_null<T>(weight);
    T *py = out.data<T>(), *pr = rstd.data<T>();
    parallel_for(rows, 3 * n, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) rms_norm_row(px + r * n, w, static_cast<T>(eps), n, py + r * n, pr[r]);
    });
  });
}

// As cpu_add_layer_norm, for RMS norm.
void cpu_add_rms_norm(const Tensor& x, const Tensor& r, const Tensor& weight, double eps, const Tensor& sum,
                      const Tensor& out, const Tensor& rstd) {
  if (x.dtype() == DType::BFloat16) {
    add_rounded(x, r, sum);
    return cpu_rms_norm(sum, weight, eps, out, rstd);
  }
  if (r.dtype() != x.dtype()) return cpu_add_rms_norm(x, widened(r), weight, eps, sum, out, rstd);
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "add_rms_norm", [&]<class T>() {
    const T *px = x.data<T>(), *pr = r.data<T>(), *w = data_or_null<T>(weight);
    T *ps = sum.data<T>(), *py = out.data<T>(), *prs = rstd.data<T>();
    parallel_for(rows, 4 * n, [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const T *xi = px + row * n, *ri = pr + row * n;
        T* si = ps + row * n;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) si[i] = xi[i] + ri[i];
        rms_norm_row(si, w, static_cast<T>(eps), n, py + row * n, prs[row]);
      }
    });
  });
}

// -- backward ---------------------------------------------------------------------------------

// Splits rows into a fixed number of blocks; run(block, r0, r1, dw, db) accumulates into the
// block's partial sums (each (n)), which are then added into dweight/dbias in block order.
template <class T, class F>
void blocked_rows(int64_t rows, int64_t n, bool need_dw, bool need_db, T* dweight, T* dbias, F run) {
  constexpr int64_t kBlocks = 32;
  const int64_t blocks = std::max<int64_t>(1, std::min(rows, kBlocks));
  std::vector<T> dw(need_dw ? blocks * n : 0), db(need_db ? blocks * n : 0);  // zero-initialised
  parallel_for(blocks, 6 * n * (rows / blocks + 1), [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk)
      run(rows * blk / blocks, rows * (blk + 1) / blocks, need_dw ? dw.data() + blk * n : nullptr,
          need_db ? db.data() + blk * n : nullptr);
  });
  auto reduce = [&](const std::vector<T>& part, T* dst) {
    parallel_for(n, blocks, [&](int64_t i0, int64_t i1) {
#pragma omp simd
      for (int64_t i = i0; i < i1; ++i) dst[i] = part[i];
      for (int64_t blk = 1; blk < blocks; ++blk) {
        const T* p = part.data() + blk * n;
#pragma omp simd
        for (int64_t i = i0; i < i1; ++i) dst[i] += p[i];
      }
    });
  };
  if (need_dw) reduce(dw, dweight);
  if (need_db) reduce(db, dbias);
}

// One row of the backward: a first pass for mean(gw) and mean(gw xhat), then one fused pass
// writing dx and accumulating dweight/dbias. The flags pick the variant at compile time so
// the loops stay branch-free and vectorise.
template <bool kW, bool kDX, bool kDW, bool kDB, class T>
void layer_norm_backward_row(const T* g, const T* x, const T* w, T m, T rs, T inv_n, int64_t n, T* d, T* dw, T* db) {
  T a = 0, c = 0;
  if constexpr (kDX) {
#pragma omp simd reduction(+ : a, c)
    for (int64_t i = 0; i < n; ++i) {
      const T gw = kW ? g[i] * w[i] : g[i];
      a += gw;
      c += gw * (x[i] - m);
    }
    a *= inv_n, c *= inv_n * rs;
  }
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const T xhat = (x[i] - m) * rs;
    if constexpr (kDX) d[i] = rs * ((kW ? g[i] * w[i] : g[i]) - a - xhat * c);
    if constexpr (kDW) dw[i] += g[i] * xhat;
    if constexpr (kDB) db[i] += g[i];
  }
}

// Calls f.template operator()<b0, b1, b2, b3>() with run-time flags turned into constants.
template <class F>
void with_flags(bool b0, bool b1, bool b2, bool b3, F&& f) {
  auto k1 = [&]<bool B0>() {
    auto k2 = [&]<bool B1>() {
      auto k3 = [&]<bool B2>() {
        if (b3) f.template operator()<B0, B1, B2, true>();
        else f.template operator()<B0, B1, B2, false>();
      };
      if (b2) k3.template operator()<true>();
      else k3.template operator()<false>();
    };
    if (b1) k2.template operator()<true>();
    else k2.template operator()<false>();
  };
  if (b0) k1.template operator()<true>();
  else k1.template operator()<false>();
}

void cpu_layer_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                             const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  if (x.dtype() == DType::BFloat16) {
    const Tensor d = float32_like(dx);
    cpu_layer_norm_backward(widened(g), widened(x), weight, mean, rstd, d, dweight, dbias);
    return round_into(d, dx);
  }
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "layer_norm_backward", [&]<class T>() {
    const T *pg = g.data<T>(), *px = x.data<T>(), *w = data_or_null<T>(weight);
    const T *pm = mean.data<T>(), *pr = rstd.data<T>();
    T* pdx = dx.defined() ? dx.data<T>() : nullptr;
    T* pdw = dweight.defined() ? dweight.data<T>() : nullptr;
    T* pdb = dbias.defined() ? dbias.data<T>() : nullptr;
    const T inv_n = T(1) / static_cast<T>(std::max<int64_t>(n, 1));
    with_flags(w != nullptr, pdx != nullptr, pdw != nullptr, pdb != nullptr, [&]<bool kW, bool kDX, bool kDW, bool kDB>() {
      blocked_rows<T>(rows, n, kDW, kDB, pdw, pdb, [&](int64_t r0, int64_t r1, T* dw, T* db) {
        for (int64_t r = r0; r < r1; ++r)
          layer_norm_backward_row<kW, kDX, kDW, kDB>(pg + r * n, px + r * n, w, pm[r], pr[r], inv_n, n,
                                                     pdx + (kDX ? r * n : 0), dw, db);
      });
    });
  });
}

template <bool kW, class T>
void rms_norm_dx_row(const T* g, const T* x, const T* w, T rs, T inv_n, int64_t n, T* d) {
  T c = 0;  // sum(gw xhat)
#pragma omp simd reduction(+ : c)
  for (int64_t i = 0; i < n; ++i) c += (kW ? g[i] * w[i] : g[i]) * x[i] * rs;
  c *= inv_n;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) d[i] = rs * ((kW ? g[i] * w[i] : g[i]) - x[i] * rs * c);
}

void cpu_rms_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& rstd,
                           const Tensor& dx, const Tensor& dweight) {
  if (x.dtype() == DType::BFloat16) {
    const Tensor d = float32_like(dx);
    cpu_rms_norm_backward(widened(g), widened(x), weight, rstd, d, dweight);
    return round_into(d, dx);
  }
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_float(x.dtype(), "rms_norm_backward", [&]<class T>() {
    const T *pg = g.data<T>(), *px = x.data<T>(), *w = data_or_null<T>(weight), *pr = rstd.data<T>();
    T* pdx = dx.defined() ? dx.data<T>() : nullptr;
    T* pdw = dweight.defined() ? dweight.data<T>() : nullptr;
    const T inv_n = T(1) / static_cast<T>(std::max<int64_t>(n, 1));
    blocked_rows<T>(rows, n, pdw != nullptr, false, pdw, nullptr, [&](int64_t r0, int64_t r1, T* dw, T*) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* gr = pg + r * n;
        const T* xr = px + r * n;
        const T rs = pr[r];
        if (pdx && w) rms_norm_dx_row<true>(gr, xr, w, rs, inv_n, n, pdx + r * n);
        if (pdx && !w) rms_norm_dx_row<false>(gr, xr, w, rs, inv_n, n, pdx + r * n);
        if (dw) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) dw[i] += gr[i] * xr[i] * rs;
        }
      }
    });
  });
}

[[maybe_unused]] const bool add_norm_bound =
    (add_layer_norm_kernel.cpu = cpu_add_layer_norm, add_rms_norm_kernel.cpu = cpu_add_rms_norm, true);
[[maybe_unused]] const bool normalization_bound =
    (layer_norm_kernel.cpu = cpu_layer_norm, layer_norm_backward_kernel.cpu = cpu_layer_norm_backward,
     rms_norm_kernel.cpu = cpu_rms_norm, rms_norm_backward_kernel.cpu = cpu_rms_norm_backward, true);

}  // namespace
}  // namespace hm
