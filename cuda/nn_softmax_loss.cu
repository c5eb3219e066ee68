// CUDA softmax / log_softmax and the losses (cross entropy, nll, mse), forward and
// backward, with the formulas of the CPU kernels (ops/cpu/softmax.cpp, cross_entropy.cpp,
// mse_loss.cpp). Scores are (outer, C, inner) around the class dim:
//   inner == 1: a warp (or a block, for C >= 1024) per row, reductions in cuda/rows.cuh;
//   inner > 1:  a thread per (outer, inner) position walks the C classes (coalesced in j).
// Loss totals are deterministic double sums (reduce_total). Targets are validated on the
// device first; the count comes back to the host (the slot returns it), so a loss syncs.
#include <limits>

#include "cuda/emulation.h"
#include "cuda/rows.cuh"
#include "ops/nn_kernels.h"

namespace hm::cuda {
namespace {

struct Layout {
  int64_t outer, classes, inner;
  int64_t positions() const { return outer * inner; }
  HM_HD int64_t base(int64_t p) const { return (p / inner) * classes * inner + p % inner; }  // class 0 of p
};

Layout layout_of(const Shape& shape, int64_t dim) {
  Layout l{1, shape.empty() ? 1 : shape[dim], 1};
  for (int64_t d = 0; d < dim; ++d) l.outer *= shape[d];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d) l.inner *= shape[d];
  return l;
}

template <class T>
HM_HD T neg_inf() {
  return -std::numeric_limits<T>::infinity();
}

// -- softmax --------------------------------------------------------------------------------

template <class T>
struct SoftmaxRows {  // x, y (rows, C)
  using Acc = T;
  using Op1 = MaxOp;
  const T* x;
  T* y;
  int64_t c;
  bool log;
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T m = neg_inf<T>();
    for (int64_t i = lane; i < c; i += lanes) m = x[r * c + i] > m ? x[r * c + i] : m;
    return m;
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T m) const {
    T s = 0;
    for (int64_t i = lane; i < c; i += lanes) s += std::exp(x[r * c + i] - m);
    return s;
  }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T m, T s, T) const {
    const T lse = m + std::log(s), inv = T(1) / s;
    for (int64_t i = lane; i < c; i += lanes)
      y[r * c + i] = log ? x[r * c + i] - lse : std::exp(x[r * c + i] - m) * inv;
  }
};

template <class T>
struct SoftmaxCols {  // one thread per (outer, inner) position
  const T* x;
  T* y;
  Layout l;
  bool log;
  HM_HD void operator()(int64_t p) const {
    const int64_t b = l.base(p), st = l.inner;
    T m = neg_inf<T>(), s = 0;
    for (int64_t c = 0; c < l.classes; ++c) m = x[b + c * st] > m ? x[b + c * st] : m;
    for (int64_t c = 0; c < l.classes; ++c) s += std::exp(x[b + c * st] - m);
    const T lse = m + std::log(s), inv = T(1) / s;
    for (int64_t c = 0; c < l.classes; ++c)
      y[b + c * st] = log ? x[b + c * st] - lse : std::exp(x[b + c * st] - m) * inv;
  }
};

template <class T>
struct SoftmaxBackwardRows {  // softmax: dx = y (g - sum(g y)); log: dx = g - exp(y) sum(g)
  using Acc = T;
  using Op1 = AddOp;
  const T *y, *g;
  T* dx;
  int64_t c;
  bool log;
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T s = 0;
    for (int64_t i = lane; i < c; i += lanes) s += log ? g[r * c + i] : g[r * c + i] * y[r * c + i];
    return s;
  }
  HM_HD T part2(int64_t, int, int, T) const { return T(0); }
  HM_HD T part3(int64_t, int, int, T, T) const { return T(0); }
  HM_HD void write(int64_t r, int lane, int lanes, T s, T, T) const {
    for (int64_t i = lane; i < c; i += lanes) {
      const int64_t k = r * c + i;
      dx[k] = log ? g[k] - std::exp(y[k]) * s : y[k] * (g[k] - s);
    }
  }
};

template <class T>
struct SoftmaxBackwardCols {
  const T *y, *g;
  T* dx;
  Layout l;
  bool log;
  HM_HD void operator()(int64_t p) const {
    const int64_t b = l.base(p), st = l.inner;
    T s = 0;
    for (int64_t c = 0; c < l.classes; ++c) s += log ? g[b + c * st] : g[b + c * st] * y[b + c * st];
    for (int64_t c = 0; c < l.classes; ++c) {
      const int64_t k = b + c * st;
      dx[k] = log ? g[k] - std::exp(y[k]) * s : y[k] * (g[k] - s);
    }
  }
};

template <Exec E>
void softmax_on(const Tensor& x, int64_t dim, bool log, const Tensor& out) {
  const int device = kernel_device(E, "softmax", {&x, &out});
  const Layout l = layout_of(x.shape(), dim);
  dispatch_float(x.dtype(), "softmax", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = static_cast<T*>(out.raw_data());
    if (l.inner == 1)
      run_rows(E, device, SoftmaxRows<T>{px, py, l.classes, log}, l.outer, l.classes);
    else
      for_each_index(E, device, l.positions(), SoftmaxCols<T>{px, py, l, log});
  });
}

template <Exec E>
void softmax_backward_on(const Tensor& y, const Tensor& g, int64_t dim, bool log, const Tensor& dx) {
  const int device = kernel_device(E, "softmax_backward", {&y, &g, &dx});
  const Layout l = layout_of(y.shape(), dim);
  dispatch_float(y.dtype(), "softmax_backward", [&]<class T>() {
    const T* py = static_cast<const T*>(y.raw_data());
    const T* pg = static_cast<const T*>(g.raw_data());
    T* pd = static_cast<T*>(dx.raw_data());
    if (l.inner == 1)
      run_rows(E, device, SoftmaxBackwardRows<T>{py, pg, pd, l.classes, log}, l.outer, l.classes);
    else
      for_each_index(E, device, l.positions(), SoftmaxBackwardCols<T>{py, pg, pd, l, log});
  });
}

// -- targets ----------------------------------------------------------------------------------

struct CountTargets {  // 1 per non-ignored target
  const int64_t* t;
  int64_t ignore_index;
  HM_HD double operator()(int64_t p) const { return t[p] != ignore_index ? 1.0 : 0.0; }
};
struct CountBadTargets {  // 1 per target outside [0, C) that is not ignored
  const int64_t* t;
  int64_t ignore_index, classes;
  HM_HD double operator()(int64_t p) const { return t[p] != ignore_index && (t[p] < 0 || t[p] >= classes) ? 1.0 : 0.0; }
};

// Returns the number of non-ignored targets; throws (like the CPU) naming the first bad one.
int64_t check_targets(Exec exec, int device, const Tensor& target, int64_t classes, int64_t ignore_index,
                      std::string_view fn) {
  const int64_t n = target.numel();
  if (n == 0) return 0;
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  Tensor info = Tensor::empty({2}, DType::Float64, target.device());
  double* pi = static_cast<double*>(info.raw_data());
  reduce_total(exec, device, n, CountTargets{t, ignore_index}, 1.0, pi);
  reduce_total(exec, device, n, CountBadTargets{t, ignore_index, classes}, 1.0, pi + 1);
  double host[2];
  read_back(exec, device, pi, host, 2);
  if (host[1] > 0) {  // error path: find the first bad target on the host
    const Tensor cpu = target.to(Device::cpu());
    const int64_t* ct = cpu.data<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      check(ct[i] == ignore_index || (ct[i] >= 0 && ct[i] < classes), fn,
            "target {} at position {} is out of range for {} classes", ct[i], i, classes);
  }
  return static_cast<int64_t>(host[0]);
}

template <class T>
struct AsDouble {
  const T* v;
  HM_HD double operator()(int64_t p) const { return static_cast<double>(v[p]); }
};

// -- cross entropy ------------------------------------------------------------------------------
// loss = lse - (1 - eps) x[t] - eps / C sum_c x[c]; ignored positions give 0 (and lse 0).

template <class T>
struct CrossEntropyTerms {
  const T* x;
  const int64_t* t;
  T* lse;
  T* loss;  // per position
  int64_t ignore_index;
  T eps, uniform;
  HM_HD void finish(int64_t p, const T* xp, int64_t stride, T m, T s, T total) const {
    if (t[p] == ignore_index) {
      lse[p] = 0, loss[p] = 0;
      return;
    }
    const T l = m + std::log(s), xt = xp[t[p] * stride];
    lse[p] = l;
    loss[p] = eps == T(0) ? l - xt : l - (T(1) - eps) * xt - uniform * total;
  }
};

template <class T>
struct CrossEntropyRows {  // inner == 1: position p is row p
  using Acc = T;
  using Op1 = MaxOp;
  CrossEntropyTerms<T> k;
  int64_t c;
  HM_HD T part1(int64_t r, int lane, int lanes) const {
    T m = neg_inf<T>();
    for (int64_t i = lane; i < c; i += lanes) m = k.x[r * c + i] > m ? k.x[r * c + i] : m;
    return m;
  }
  HM_HD T part2(int64_t r, int lane, int lanes, T m) const {
    T s = 0;
    for (int64_t i = lane; i < c; i += lanes) s += std::exp(k.x[r * c + i] - m);
    return s;
  }
  HM_HD T part3(int64_t r, int lane, int lanes, T, T) const {
    T total = 0;
    if (k.eps != T(0))
      for (int64_t i = lane; i < c; i += lanes) total += k.x[r * c + i];
    return total;
  }
  HM_HD void write(int64_t r, int lane, int, T m, T s, T total) const {
    if (lane == 0) k.finish(r, k.x + r * c, 1, m, s, total);
  }
};

template <class T>
struct CrossEntropyCols {
  CrossEntropyTerms<T> k;
  Layout l;
  HM_HD void operator()(int64_t p) const {
    const T* xp = k.x + l.base(p);
    const int64_t st = l.inner;
    T m = neg_inf<T>(), s = 0, total = 0;
    for (int64_t c = 0; c < l.classes; ++c) m = xp[c * st] > m ? xp[c * st] : m, total += xp[c * st];
    for (int64_t c = 0; c < l.classes; ++c) s += std::exp(xp[c * st] - m);
    k.finish(p, xp, st, m, s, total);
  }
};

template <Exec E>
int64_t cross_entropy_on(const Tensor& logits, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                         const Tensor& lse) {
  const int device = kernel_device(E, "cross_entropy", {&logits, &target, &out, &lse});
  const Layout l = layout_of(logits.shape(), args.class_dim);
  const int64_t count = check_targets(E, device, target, l.classes, args.ignore_index, "cross_entropy");
  const bool none = args.reduction == Reduction::None;
  dispatch_float(logits.dtype(), "cross_entropy", [&]<class T>() {
    Tensor losses = none ? out : Tensor::empty({l.positions()}, logits.dtype(), logits.device());
    const T eps = static_cast<T>(args.label_smoothing);
    const CrossEntropyTerms<T> k{static_cast<const T*>(logits.raw_data()),
                                 static_cast<const int64_t*>(target.raw_data()),
                                 static_cast<T*>(lse.raw_data()),
                                 static_cast<T*>(losses.raw_data()),
                                 args.ignore_index,
                                 eps,
                                 eps / static_cast<T>(l.classes)};
    if (l.inner == 1)
      run_rows(E, device, CrossEntropyRows<T>{k, l.classes}, l.positions(), l.classes);
    else
      for_each_index(E, device, l.positions(), CrossEntropyCols<T>{k, l});
    if (!none)  // Mean divides by the count (0/0 = NaN, like PyTorch)
      reduce_total(E, device, l.positions(), AsDouble<T>{k.loss},
                   args.reduction == Reduction::Mean ? static_cast<double>(count) : 1.0,
                   static_cast<T*>(out.raw_data()));
  });
  return count;
}

// dx[c] = (exp(x[c] - lse) - eps / C) gs - [c == t] (1 - eps) gs, gs = g scale (0 if ignored).
template <class T>
struct CrossEntropyBackward {
  const T *x, *lse, *g;
  const int64_t* t;
  T* dx;
  Layout l;
  int64_t ignore_index;
  bool per_position;
  T scale, eps, uniform;
  HM_HD void operator()(int64_t i) const {
    const int64_t j = i % l.inner, c = (i / l.inner) % l.classes, o = i / (l.inner * l.classes);
    const int64_t p = o * l.inner + j;
    const bool ignored = t[p] == ignore_index;
    const T gs = ignored ? T(0) : (per_position ? g[p] : g[0]) * scale;
    T d = (std::exp(x[i] - lse[p]) - uniform) * gs;
    if (!ignored && c == t[p]) d -= (T(1) - eps) * gs;
    dx[i] = d;
  }
};

template <Exec E>
void cross_entropy_backward_on(const Tensor& logits, const Tensor& target, const Tensor& lse, const Tensor& g,
                               const ClassLossArgs& args, double scale, const Tensor& dlogits) {
  const int device = kernel_device(E, "cross_entropy_backward", {&logits, &target, &lse, &g, &dlogits});
  const Layout l = layout_of(logits.shape(), args.class_dim);
  dispatch_float(logits.dtype(), "cross_entropy_backward", [&]<class T>() {
    const T eps = static_cast<T>(args.label_smoothing);
    for_each_index(E, device, logits.numel(),
                   CrossEntropyBackward<T>{
                       static_cast<const T*>(logits.raw_data()), static_cast<const T*>(lse.raw_data()),
                       static_cast<const T*>(g.raw_data()), static_cast<const int64_t*>(target.raw_data()),
                       static_cast<T*>(dlogits.raw_data()), l, args.ignore_index, args.reduction == Reduction::None,
                       static_cast<T>(scale), eps, eps / static_cast<T>(l.classes)});
  });
}

// -- nll loss -----------------------------------------------------------------------------------

template <class T>
struct NllTerm {  // -log_probs[target] in double, 0 when ignored
  const T* lp;
  const int64_t* t;
  Layout l;
  int64_t ignore_index;
  HM_HD double operator()(int64_t p) const {
    return t[p] == ignore_index ? 0.0 : -static_cast<double>(lp[l.base(p) + t[p] * l.inner]);
  }
};

template <class T>
struct NllPerPosition {
  NllTerm<T> term;
  T* out;
  HM_HD void operator()(int64_t p) const { out[p] = static_cast<T>(term(p)); }
};

template <Exec E>
int64_t nll_loss_on(const Tensor& log_probs, const Tensor& target, const ClassLossArgs& args, const Tensor& out) {
  const int device = kernel_device(E, "nll_loss", {&log_probs, &target, &out});
  const Layout l = layout_of(log_probs.shape(), args.class_dim);
  const int64_t count = check_targets(E, device, target, l.classes, args.ignore_index, "nll_loss");
  dispatch_float(log_probs.dtype(), "nll_loss", [&]<class T>() {
    const NllTerm<T> term{static_cast<const T*>(log_probs.raw_data()), static_cast<const int64_t*>(target.raw_data()),
                          l, args.ignore_index};
    T* po = static_cast<T*>(out.raw_data());
    if (args.reduction == Reduction::None)
      for_each_index(E, device, l.positions(), NllPerPosition<T>{term, po});
    else
      reduce_total(E, device, l.positions(), term, args.reduction == Reduction::Mean ? static_cast<double>(count) : 1.0,
                   po);
  });
  return count;
}

template <class T>
struct NllBackward {  // d[i] = -g scale at the target class of a non-ignored position, else 0
  const int64_t* t;
  const T* g;
  T* d;
  Layout l;
  int64_t ignore_index;
  bool per_position;
  T scale;
  HM_HD void operator()(int64_t i) const {
    const int64_t j = i % l.inner, c = (i / l.inner) % l.classes, o = i / (l.inner * l.classes);
    const int64_t p = o * l.inner + j;
    d[i] = t[p] != ignore_index && c == t[p] ? -(per_position ? g[p] : g[0]) * scale : T(0);
  }
};

template <Exec E>
void nll_loss_backward_on(const Tensor& target, const Tensor& g, const ClassLossArgs& args, double scale,
                          const Tensor& dlog_probs) {
  const int device = kernel_device(E, "nll_loss_backward", {&target, &g, &dlog_probs});
  const Layout l = layout_of(dlog_probs.shape(), args.class_dim);
  dispatch_float(dlog_probs.dtype(), "nll_loss_backward", [&]<class T>() {
    for_each_index(E, device, dlog_probs.numel(),
                   NllBackward<T>{static_cast<const int64_t*>(target.raw_data()), static_cast<const T*>(g.raw_data()),
                                  static_cast<T*>(dlog_probs.raw_data()), l, args.ignore_index,
                                  args.reduction == Reduction::None, static_cast<T>(scale)});
  });
}

// -- mse ----------------------------------------------------------------------------------------

template <class T>
struct SquaredError {
  const T *x, *t;
  HM_HD T at(int64_t i) const { return (x[i] - t[i]) * (x[i] - t[i]); }
  HM_HD double operator()(int64_t i) const { return static_cast<double>(at(i)); }
};
template <class T>
struct SquaredErrorOut {
  SquaredError<T> e;
  T* out;
  HM_HD void operator()(int64_t i) const { out[i] = e.at(i); }
};

template <Exec E>
void mse_loss_on(const Tensor& input, const Tensor& target, Reduction reduction, const Tensor& out) {
  const int device = kernel_device(E, "mse_loss", {&input, &target, &out});
  dispatch_float(input.dtype(), "mse_loss", [&]<class T>() {
    const SquaredError<T> e{static_cast<const T*>(input.raw_data()), static_cast<const T*>(target.raw_data())};
    T* po = static_cast<T*>(out.raw_data());
    const int64_t n = input.numel();
    if (reduction == Reduction::None)
      for_each_index(E, device, n, SquaredErrorOut<T>{e, po});
    else  // Mean of nothing is 0/0 = NaN, like PyTorch
      reduce_total(E, device, n, e, reduction == Reduction::Mean ? static_cast<double>(n) : 1.0, po);
  });
}

template <class T>
struct MseBackward {  // d = (x - t) g 2 scale, g 0-d (scalar_grad) or elementwise
  const T *x, *t, *g;
  T* d;
  bool scalar_grad;
  T s;
  HM_HD void operator()(int64_t i) const { d[i] = scalar_grad ? (x[i] - t[i]) * (g[0] * s) : (x[i] - t[i]) * g[i] * s; }
};

template <Exec E>
void mse_loss_backward_on(const Tensor& input, const Tensor& target, const Tensor& g, double scale,
                          const Tensor& dinput) {
  const int device = kernel_device(E, "mse_loss_backward", {&input, &target, &g, &dinput});
  dispatch_float(input.dtype(), "mse_loss_backward", [&]<class T>() {
    for_each_index(E, device, input.numel(),
                   MseBackward<T>{static_cast<const T*>(input.raw_data()), static_cast<const T*>(target.raw_data()),
                                  static_cast<const T*>(g.raw_data()), static_cast<T*>(dinput.raw_data()),
                                  g.numel() == 1, static_cast<T>(2 * scale)});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(softmax_kernel, softmax_on<Exec::Device>, softmax_on<Exec::Host>) &&
    bind_cuda(softmax_backward_kernel, softmax_backward_on<Exec::Device>, softmax_backward_on<Exec::Host>) &&
    bind_cuda(cross_entropy_kernel, cross_entropy_on<Exec::Device>, cross_entropy_on<Exec::Host>) &&
    bind_cuda(cross_entropy_backward_kernel, cross_entropy_backward_on<Exec::Device>,
              cross_entropy_backward_on<Exec::Host>) &&
    bind_cuda(nll_loss_kernel, nll_loss_on<Exec::Device>, nll_loss_on<Exec::Host>) &&
    bind_cuda(nll_loss_backward_kernel, nll_loss_backward_on<Exec::Device>, nll_loss_backward_on<Exec::Host>) &&
    bind_cuda(mse_loss_kernel, mse_loss_on<Exec::Device>, mse_loss_on<Exec::Host>) &&
    bind_cuda(mse_loss_backward_kernel, mse_loss_backward_on<Exec::Device>, mse_loss_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
