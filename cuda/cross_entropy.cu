// CUDA cross entropy and nll loss, forward and backward, with the formulas of the CPU kernels
// (ops/cpu/cross_entropy.cpp). Scores are (outer, C, inner) around the class dim
// (ops/class_layout.h): inner == 1: a warp (or a block, for C >= 1024) per row, reductions in
// cuda/device/rows.cuh; inner > 1: a thread per (outer, inner) position walks the C classes.
// Loss totals are deterministic double sums (reduce_total). Targets are validated on the
// device first (cuda/device/index_checks.cuh); the count of non-ignored targets, Mean's divisor, stays
// on the device, so inside a DeferredChecks scope a loss never waits for the device.
#include <limits>

#include "harmonic/cuda/device/index_checks.cuh"
#include "harmonic/cuda/device/rows.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/ops/class_layout.h"
#include "harmonic/ops/cross_entropy_kernels.h"

namespace hm::cuda {
namespace {

template <class T>
HM_HD T neg_inf() {
  return -std::numeric_limits<T>::infinity();
}

// -- targets ----------------------------------------------------------------------------------

struct CountTargets {  // 1 per non-ignored target
  const int64_t* t;
  int64_t ignore_index;
  HM_HD double operator()(int64_t p) const { return t[p] != ignore_index ? 1.0 : 0.0; }
};

// Validates the targets like the CPU (at once, or at the host's next wait: cuda/device/index_checks.cuh)
// and writes the number of non-ignored ones into count, on the device.
void check_targets(Exec exec, int device, const Tensor& target, int64_t classes, int64_t ignore_index,
                   std::string_view fn, const Tensor& count) {
  check_index_values(exec, device, target, classes, ignore_index, fn, [classes](int64_t position, int64_t v) {
    return fmt::format("target {} at position {} is out of range for {} classes", v, position, classes);
  });
  reduce_total(exec, device, target.numel(), CountTargets{static_cast<const int64_t*>(target.raw_data()), ignore_index},
               1.0, static_cast<double*>(count.raw_data()));
}

// Mean's divisor, the count in kernel memory; 1 for the other reductions.
Divisor mean_divisor(const ClassLossArgs& args, const Tensor& count) {
  return args.reduction == Reduction::Mean ? Divisor(static_cast<const double*>(count.raw_data())) : Divisor(1.0);
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
  int64_t ignore_index, classes;
  T eps, uniform;
  HM_HD void finish(int64_t p, const T* xp, int64_t stride, T m, T s, T total) const {
    if (t[p] == ignore_index) {
      lse[p] = 0, loss[p] = 0;
      return;
    }
    if (!index_in_range(t[p], classes)) {  // reported by the target check; read nothing outside the row
      lse[p] = loss[p] = std::numeric_limits<T>::quiet_NaN();
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
  ClassLayout l;
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
void cross_entropy_on(const Tensor& logits, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                      const Tensor& lse, const Tensor& count) {
  const int device = kernel_device(E, "cross_entropy", {&logits, &target, &out, &lse, &count});
  const ClassLayout l = class_layout(logits.shape(), args.class_dim);
  check_targets(E, device, target, l.classes, args.ignore_index, "cross_entropy", count);
  const bool none = args.reduction == Reduction::None;
  dispatch_float(logits.dtype(), "cross_entropy", [&]<class T>() {
    Tensor losses = none ? out : Tensor::empty({l.positions()}, logits.dtype(), logits.device());
    const T eps = static_cast<T>(args.label_smoothing);
    const CrossEntropyTerms<T> k{static_cast<const T*>(logits.raw_data()),
                                 static_cast<const int64_t*>(target.raw_data()),
                                 static_cast<T*>(lse.raw_data()),
                                 static_cast<T*>(losses.raw_data()),
                                 args.ignore_index,
                                 l.classes,
                                 eps,
                                 eps / static_cast<T>(l.classes)};
    if (l.inner == 1)
      run_rows(E, device, CrossEntropyRows<T>{k, l.classes}, l.positions(), l.classes);
    else
      for_each_index(E, device, l.positions(), CrossEntropyCols<T>{k, l});
    if (!none)  // Mean divides by the count (0/0 = NaN, like PyTorch)
      reduce_total(E, device, l.positions(), AsDouble<T>{k.loss},
                   mean_divisor(args, count), static_cast<T*>(out.raw_data()));
  });
}

// dx[c] = (exp(x[c] - lse) - eps / C) gs - [c == t] (1 - eps) gs, gs = g scale (0 if ignored).
template <class T>
struct CrossEntropyBackward {
  const T *x, *lse, *g;
  const int64_t* t;
  T* dx;
  ClassLayout l;
  int64_t ignore_index;
  bool per_position;
  Divisor divisor;  // the backward's scale is its inverse
  T eps, uniform;
  HM_HD void operator()(int64_t i) const {
    const int64_t j = i % l.inner, c = (i / l.inner) % l.classes, o = i / (l.inner * l.classes);
    const int64_t p = o * l.inner + j;
    const bool ignored = t[p] == ignore_index;
    const T gs = ignored ? T(0) : (per_position ? g[p] : g[0]) * static_cast<T>(1.0 / divisor.get());
    T d = (std::exp(x[i] - lse[p]) - uniform) * gs;
    if (!ignored && c == t[p]) d -= (T(1) - eps) * gs;
    dx[i] = d;
  }
};

template <Exec E>
void cross_entropy_backward_on(const Tensor& logits, const Tensor& target, const Tensor& lse, const Tensor& g,
                               const ClassLossArgs& args, const Tensor& count, const Tensor& dlogits) {
  const int device = kernel_device(E, "cross_entropy_backward", {&logits, &target, &lse, &g, &count, &dlogits});
  const ClassLayout l = class_layout(logits.shape(), args.class_dim);
  dispatch_float(logits.dtype(), "cross_entropy_backward", [&]<class T>() {
    const T eps = static_cast<T>(args.label_smoothing);
    for_each_index(
        E, device, logits.numel(),
        CrossEntropyBackward<T>{static_cast<const T*>(logits.raw_data()), static_cast<const T*>(lse.raw_data()),
                                static_cast<const T*>(g.raw_data()), static_cast<const int64_t*>(target.raw_data()),
                                static_cast<T*>(dlogits.raw_data()), l, args.ignore_index,
                                args.reduction == Reduction::None, mean_divisor(args, count), eps, eps / static_cast<T>(l.classes)});
  });
}

// -- nll loss -----------------------------------------------------------------------------------

template <class T>
struct NllTerm {  // -log_probs[target] in double, 0 when ignored
  const T* lp;
  const int64_t* t;
  ClassLayout l;
  int64_t ignore_index;
  HM_HD double operator()(int64_t p) const {
    if (t[p] == ignore_index) return 0.0;
    if (!index_in_range(t[p], l.classes)) return std::numeric_limits<double>::quiet_NaN();  // reported by the check
    return -static_cast<double>(lp[l.base(p) + t[p] * l.inner]);
  }
};

template <class T>
struct NllPerPosition {
  NllTerm<T> term;
  T* out;
  HM_HD void operator()(int64_t p) const { out[p] = static_cast<T>(term(p)); }
};

template <Exec E>
void nll_loss_on(const Tensor& log_probs, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                 const Tensor& count) {
  const int device = kernel_device(E, "nll_loss", {&log_probs, &target, &out, &count});
  const ClassLayout l = class_layout(log_probs.shape(), args.class_dim);
  check_targets(E, device, target, l.classes, args.ignore_index, "nll_loss", count);
  dispatch_float(log_probs.dtype(), "nll_loss", [&]<class T>() {
    const NllTerm<T> term{static_cast<const T*>(log_probs.raw_data()), static_cast<const int64_t*>(target.raw_data()),
                          l, args.ignore_index};
    T* po = static_cast<T*>(out.raw_data());
    if (args.reduction == Reduction::None)
      for_each_index(E, device, l.positions(), NllPerPosition<T>{term, po});
    else
      reduce_total(E, device, l.positions(), term,
                   mean_divisor(args, count), po);
  });
}

template <class T>
struct NllBackward {  // d[i] = -g scale at the target class of a non-ignored position, else 0
  const int64_t* t;
  const T* g;
  T* d;
  ClassLayout l;
  int64_t ignore_index;
  bool per_position;
  Divisor divisor;  // the scale is its inverse
  HM_HD void operator()(int64_t i) const {
    const int64_t j = i % l.inner, c = (i / l.inner) % l.classes, o = i / (l.inner * l.classes);
    const int64_t p = o * l.inner + j;
    d[i] = t[p] != ignore_index && c == t[p] ? -(per_position ? g[p] : g[0]) * static_cast<T>(1.0 / divisor.get())
                                             : T(0);
  }
};

template <Exec E>
void nll_loss_backward_on(const Tensor& target, const Tensor& g, const ClassLossArgs& args, const Tensor& count,
                          const Tensor& dlog_probs) {
  const int device = kernel_device(E, "nll_loss_backward", {&target, &g, &count, &dlog_probs});
  const ClassLayout l = class_layout(dlog_probs.shape(), args.class_dim);
  dispatch_float(dlog_probs.dtype(), "nll_loss_backward", [&]<class T>() {
    for_each_index(E, device, dlog_probs.numel(),
                   NllBackward<T>{static_cast<const int64_t*>(target.raw_data()), static_cast<const T*>(g.raw_data()),
                                  static_cast<T*>(dlog_probs.raw_data()), l, args.ignore_index,
                                  args.reduction == Reduction::None, mean_divisor(args, count)});
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(cross_entropy_kernel, cross_entropy_on<Exec::Device>, cross_entropy_on<Exec::Host>) &&
    bind_cuda(cross_entropy_backward_kernel, cross_entropy_backward_on<Exec::Device>, cross_entropy_backward_on<Exec::Host>) &&
    bind_cuda(nll_loss_kernel, nll_loss_on<Exec::Device>, nll_loss_on<Exec::Host>) &&
    bind_cuda(nll_loss_backward_kernel, nll_loss_backward_on<Exec::Device>, nll_loss_backward_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
