// CUDA layer norm and RMS norm, and add_layer_norm / add_rms_norm (the formulas of
// ops/cpu/normalization.cpp): a warp (or a block, for D >= 1024) per row (cuda/device/rows.cuh);
// dweight / dbias are column sums over rows, deterministic: pass one sums fixed row chunks per
// column (threads adjacent in the column, so loads coalesce), pass two adds the chunks in order.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/ops/normalization_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.raw_data()) : nullptr;
}
template <class T>
T* mut_or_null(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.raw_data()) : nullptr;
}

// -- forward ----------------------------------------------------------------------------------

template <class X>
struct LayerNormRows {  // x, y (rows, n); mean, rstd (rows); w, b (n) or null
  using T = compute_t<X>;
  using Acc = T;
  using Op1 = AddOp;
  const X* x;
  const T *w, *b;
  X* y;
  T *mean, *rstd;
  int64_t n;
  T eps;
  HM_HD T at(int64_t k) const { return convert<T>(x[k]); }
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < n; i += lanes) s += at(r * n + i);
    return s;
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T sum) const {
    const T m = sum / static_cast<T>(n);
    T v = 0;
    for (int64_t i = lane; i < n; i += lanes) v += (at(r * n + i) - m) * (at(r * n + i) - m);
    return v;
  }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T sum, T var, T) const {
    const T m = sum / static_cast<T>(n), rs = T(1) / std::sqrt(var / static_cast<T>(n) + eps);
    for (int64_t i = lane; i < n; i += lanes) {
      T v = (at(r * n + i) - m) * rs;
      if (w) v = v * w[i];
      if (b) v = v + b[i];
      y[r * n + i] = convert<X>(v);
    }
    if (lane == 0) mean[r] = m, rstd[r] = rs;
  }
};

// add_layer_norm: part1 writes the row of sum = x + r and returns its sum; part2 and write read
// the sum back, each lane the elements it wrote (the same lane stride in every part), so the
// rest is LayerNormRows over the sum.
template <class X, class R = X>  // R: the branch r's type (bfloat16 beside a float32 x under autocast)
struct AddLayerNormRows {
  using T = compute_t<X>;
  using Acc = T;
  using Op1 = AddOp;
  const X* x;
  const R* r;
  X* sum;
  LayerNormRows<X> norm;  // norm.x == sum
  HM_HD T part1(int64_t row, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < norm.n; i += lanes) {
      const X v = convert<X>(convert<T>(x[row * norm.n + i]) + convert<T>(r[row * norm.n + i]));
      sum[row * norm.n + i] = v;
      s += convert<T>(v);  // the stored (rounded) sum, as layer_norm would read it
    }
    return s;
  }
  HM_HD T part2(int64_t row, int lane, int lanes, T s) const { return norm.part2(row, lane, lanes, s); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t row, int lane, int lanes, T s, T var, T) const {
    norm.write(row, lane, lanes, s, var, T(0));
  }
};

template <class X>
struct RmsNormRows {
  using T = compute_t<X>;
  using Acc = T;
  using Op1 = AddOp;
  const X* x;
  const T* w;
  X* y;
  T* rstd;
  int64_t n;
  T eps;
  HM_HD T at(int64_t k) const { return convert<T>(x[k]); }
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < n; i += lanes) s += at(r * n + i) * at(r * n + i);
    return s;
  }
  HM_HD T part2(int64_t, int, int, T) const { return T(0); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T s, T, T) const {
    const T rs = T(1) / std::sqrt(s / static_cast<T>(n) + eps);
    for (int64_t i = lane; i < n; i += lanes)
      y[r * n + i] = convert<X>(w ? at(r * n + i) * rs * w[i] : at(r * n + i) * rs);
    if (lane == 0) rstd[r] = rs;
  }
};

// add_rms_norm: part1 writes the row of sum = x + r and returns its sum of squares, as
// RmsNormRows::part1 does over x; write is RmsNormRows's over the sum.
template <class X, class R = X>
struct AddRmsNormRows {
  using T = compute_t<X>;
  using Acc = T;
  using Op1 = AddOp;
  const X* x;
  const R* r;
  X* sum;
  RmsNormRows<X> norm;  // norm.x == sum
  HM_HD T part1(int64_t row, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < norm.n; i += lanes) {
      const X v = convert<X>(convert<T>(x[row * norm.n + i]) + convert<T>(r[row * norm.n + i]));
      sum[row * norm.n + i] = v;
      s += convert<T>(v) * convert<T>(v);
    }
    return s;
  }
  HM_HD T part2(int64_t, int, int, T) const { return T(0); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t row, int lane, int lanes, T s, T, T) const { norm.write(row, lane, lanes, s, T(0), T(0)); }
};

template <Exec E>
void layer_norm_on(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, const Tensor& out,
                   const Tensor& mean, const Tensor& rstd) {
  const int device = kernel_device(E, "layer_norm", {&x, &out, &mean, &rstd});
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_kernel_floating(x.dtype(), "layer_norm", [&]<class X>() {
    using T = compute_t<X>;
    run_rows(E, device,
             LayerNormRows<X>{static_cast<const X*>(x.raw_data()), ptr_or_null<T>(weight), ptr_or_null<T>(bias),
                              static_cast<X*>(out.raw_data()), static_cast<T*>(mean.raw_data()),
                              static_cast<T*>(rstd.raw_data()), n, static_cast<T>(eps)},
             rows, n);
  });
}

// x and the sum are float32 when r is bfloat16 (a bfloat16 branch on a float32 residual).
template <Exec E>
void add_layer_norm_on(const Tensor& x, const Tensor& r, const Tensor& weight, const Tensor& bias, double eps,
                       const Tensor& sum, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  const int device = kernel_device(E, "add_layer_norm", {&x, &r, &sum, &out, &mean, &rstd});
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  auto launch = [&]<class X, class R>() {
    using T = compute_t<X>;
    X* ps = static_cast<X*>(sum.raw_data());
    const LayerNormRows<X> norm{ps,
                                ptr_or_null<T>(weight),
                                ptr_or_null<T>(bias),
                                static_cast<X*>(out.raw_data()),
                                static_cast<T*>(mean.raw_data()),
                                static_cast<T*>(rstd.raw_data()),
                                n,
                                static_cast<T>(eps)};
    run_rows(E, device,
             AddLayerNormRows<X, R>{static_cast<const X*>(x.raw_data()), static_cast<const R*>(r.raw_data()), ps, norm},
             rows, n);
  };
  if (x.dtype() == DType::Float32 && r.dtype() == DType::BFloat16) return launch.template operator()<float, Bf16>();
  dispatch_kernel_floating(x.dtype(), "add_layer_norm", [&]<class X>() { launch.template operator()<X, X>(); });
}

template <Exec E>
void add_rms_norm_on(const Tensor& x, const Tensor& r, const Tensor& weight, double eps, const Tensor& sum,
                     const Tensor& out, const Tensor& rstd) {
  const int device = kernel_device(E, "add_rms_norm", {&x, &r, &sum, &out, &rstd});
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  auto launch = [&]<class X, class R>() {
    using T = compute_t<X>;
    X* ps = static_cast<X*>(sum.raw_data());
    const RmsNormRows<X> norm{ps, ptr_or_null<T>(weight), static_cast<X*>(out.raw_data()),
                              static_cast<T*>(rstd.raw_data()), n, static_cast<T>(eps)};
    run_rows(E, device,
             AddRmsNormRows<X, R>{static_cast<const X*>(x.raw_data()), static_cast<const R*>(r.raw_data()), ps, norm},
             rows, n);
  };
  if (x.dtype() == DType::Float32 && r.dtype() == DType::BFloat16) return launch.template operator()<float, Bf16>();
  dispatch_kernel_floating(x.dtype(), "add_rms_norm", [&]<class X>() { launch.template operator()<X, X>(); });
}

template <Exec E>
void rms_norm_on(const Tensor& x, const Tensor& weight, double eps, const Tensor& out, const Tensor& rstd) {
  const int device = kernel_device(E, "rms_norm", {&x, &out, &rstd});
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_kernel_floating(x.dtype(), "rms_norm", [&]<class X>() {
    using T = compute_t<X>;
    run_rows(E, device,
             RmsNormRows<X>{static_cast<const X*>(x.raw_data()), ptr_or_null<T>(weight),
                            static_cast<X*>(out.raw_data()), static_cast<T*>(rstd.raw_data()), n, static_cast<T>(eps)},
             rows, n);
  });
}

// -- backward: dx -----------------------------------------------------------------------------
// layer norm: dx = rstd (gw - mean(gw) - xhat mean(gw xhat)); RMS norm: the same with mean = 0
// and no mean(gw) term (mean == null).

template <class X>
struct NormDxRows {
  using T = compute_t<X>;
  using Acc = T;
  using Op1 = AddOp;
  const X *g, *x;
  const T *w, *mean, *rstd;
  X* dx;
  int64_t n;
  HM_HD T gw(int64_t k, int64_t i) const { return w ? convert<T>(g[k]) * w[i] : convert<T>(g[k]); }
  HM_HD T xv(int64_t k) const { return convert<T>(x[k]); }
  HM_HD T part1(int64_t r, int lane, int lanes) const {  // sum(gw), layer norm only
    T a = 0;
    if (mean)
      for (int64_t i = lane; i < n; i += lanes) a += gw(r * n + i, i);
    return a;
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T) const {  // sum(gw (x - mean)) or sum(gw x rstd)
    T c = 0;
    const T m = mean ? mean[r] : T(0);
    for (int64_t i = lane; i < n; i += lanes)
      c += mean ? gw(r * n + i, i) * (xv(r * n + i) - m) : gw(r * n + i, i) * xv(r * n + i) * rstd[r];
    return c;
  }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T a, T c, T) const {
    const T inv_n = T(1) / static_cast<T>(n > 1 ? n : 1), rs = rstd[r], m = mean ? mean[r] : T(0);
    a *= inv_n;
    c *= mean ? inv_n * rs : inv_n;
    for (int64_t i = lane; i < n; i += lanes) {
      const int64_t k = r * n + i;
      const T xhat = (xv(k) - m) * rs;
      dx[k] = convert<X>(mean ? rs * (gw(k, i) - a - xhat * c) : rs * (gw(k, i) - xhat * c));
    }
  }
};

// -- backward: dweight / dbias ------------------------------------------------------------------

// partial[chunk, i] = sum over the chunk's rows of g * xhat (rstd set; mean null for RMS) or g.
template <class X>
struct ColumnPartials {
  using T = compute_t<X>;
  const X *g, *x;
  const T *mean, *rstd;
  T* partial;  // (chunks, n)
  int64_t rows, n, chunk_rows;
  HM_HD void operator()(int64_t k) const {
    const int64_t chunk = k / n, i = k % n;
    const int64_t r1 = (chunk + 1) * chunk_rows < rows ? (chunk + 1) * chunk_rows : rows;
    T acc = 0;
    for (int64_t r = chunk * chunk_rows; r < r1; ++r) {
      const T gv = convert<T>(g[r * n + i]);
      acc += rstd ? gv * ((convert<T>(x[r * n + i]) - (mean ? mean[r] : T(0))) * rstd[r]) : gv;
    }
    partial[k] = acc;
  }
};

template <class T>
struct ColumnFinal {  // out[i] = partial[0, i] + partial[1, i] + ... in chunk order
  const T* partial;
  T* out;
  int64_t n, chunks;
  HM_HD void operator()(int64_t i) const {
    T acc = partial[i];
    for (int64_t c = 1; c < chunks; ++c) acc += partial[c * n + i];
    out[i] = acc;
  }
};

template <class X>
void column_sums(Exec exec, int device, const Tensor& like, const X* g, const X* x, const compute_t<X>* mean,
                 const compute_t<X>* rstd, int64_t rows, int64_t n, compute_t<X>* out) {
  using T = compute_t<X>;
  // About 64 rows per chunk, at most 256 chunks: many threads, few partials.
  const int64_t chunks = std::clamp<int64_t>(rows / 64, 1, 256), chunk_rows = (rows + chunks - 1) / chunks;
  Tensor partial = Tensor::empty({chunks, n}, dtype_of<T>(), like.device());
  T* pp = static_cast<T*>(partial.raw_data());
  for_each_index(exec, device, chunks * n, ColumnPartials<X>{g, x, mean, rstd, pp, rows, n, chunk_rows});
  for_each_index(exec, device, n, ColumnFinal<T>{pp, out, n, chunks});
}

template <Exec E>
void layer_norm_backward_on(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                            const Tensor& rstd, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  const int device = kernel_device(E, "layer_norm_backward", {&g, &x, &mean, &rstd});
  const int64_t rows = mean.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_kernel_floating(x.dtype(), "layer_norm_backward", [&]<class X>() {
    using T = compute_t<X>;
    const X *pg = static_cast<const X*>(g.raw_data()), *px = static_cast<const X*>(x.raw_data());
    const T *pm = static_cast<const T*>(mean.raw_data()), *pr = static_cast<const T*>(rstd.raw_data());
    if (dx.defined())
      run_rows(E, device, NormDxRows<X>{pg, px, ptr_or_null<T>(weight), pm, pr, static_cast<X*>(dx.raw_data()), n},
               rows, n);
    if (dweight.defined()) column_sums<X>(E, device, x, pg, px, pm, pr, rows, n, static_cast<T*>(dweight.raw_data()));
    if (dbias.defined())
      column_sums<X>(E, device, x, pg, px, nullptr, nullptr, rows, n, static_cast<T*>(dbias.raw_data()));
  });
}

template <Exec E>
void rms_norm_backward_on(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& rstd, const Tensor& dx,
                          const Tensor& dweight) {
  const int device = kernel_device(E, "rms_norm_backward", {&g, &x, &rstd});
  const int64_t rows = rstd.numel(), n = rows == 0 ? 0 : x.numel() / rows;
  dispatch_kernel_floating(x.dtype(), "rms_norm_backward", [&]<class X>() {
    using T = compute_t<X>;
    const X *pg = static_cast<const X*>(g.raw_data()), *px = static_cast<const X*>(x.raw_data());
    const T* pr = static_cast<const T*>(rstd.raw_data());
    if (dx.defined())
      run_rows(E, device, NormDxRows<X>{pg, px, ptr_or_null<T>(weight), nullptr, pr, static_cast<X*>(dx.raw_data()), n},
               rows, n);
    if (dweight.defined())
      column_sums<X>(E, device, x, pg, px, nullptr, pr, rows, n, static_cast<T*>(dweight.raw_data()));
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(layer_norm_kernel, layer_norm_on<Exec::Device>, layer_norm_on<Exec::Host>) &&
    bind_cuda(layer_norm_backward_kernel, layer_norm_backward_on<Exec::Device>, layer_norm_backward_on<Exec::Host>) &&
    bind_cuda(add_layer_norm_kernel, add_layer_norm_on<Exec::Device>, add_layer_norm_on<Exec::Host>) &&
    bind_cuda(add_rms_norm_kernel, add_rms_norm_on<Exec::Device>, add_rms_norm_on<Exec::Host>) &&
    bind_cuda(rms_norm_kernel, rms_norm_on<Exec::Device>, rms_norm_on<Exec::Host>) &&
    bind_cuda(rms_norm_backward_kernel, rms_norm_backward_on<Exec::Device>, rms_norm_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
