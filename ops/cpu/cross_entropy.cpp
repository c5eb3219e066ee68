// CPU cross entropy and nll loss over (outer, C, inner) scores, one target per (outer,
// inner) position. Cross entropy is fused: the log-softmax is never stored; per position
//   loss = lse - (1 - eps) x[t] - eps / C sum_c x[c]      (PyTorch's label smoothing)
// and backward recomputes softmax from the saved lse:
//   dx[c] = (exp(x[c] - lse) - eps / C - (1 - eps) [c == t]) g scale.
// Targets are validated serially first so no exception is thrown inside a parallel region.
#include <cmath>
#include <limits>
#include <vector>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/cpu/lane_extremum.h"
#include "harmonic/ops/cpu/vec_math.h"
#include "harmonic/ops/class_layout.h"
#include "harmonic/ops/cross_entropy_kernels.h"

namespace hm {
namespace {

// Throws naming the first target outside [0, C) that is not ignore_index; writes the number
// of non-ignored targets into `count` and returns it.
double check_targets(const Tensor& target, int64_t classes, int64_t ignore_index, std::string_view fn,
                     const Tensor& count) {
  const int64_t* t = target.data<int64_t>();
  int64_t n = 0;
  for (int64_t i = 0; i < target.numel(); ++i) {
    if (t[i] == ignore_index) continue;
    check(t[i] >= 0 && t[i] < classes, fn, "target {} at position {} is out of range for {} classes", t[i], i,
          classes);
    ++n;
  }
  return *count.data<double>() = static_cast<double>(n);
}

// Backward's factor: 1 / count for Mean, else 1.
double loss_scale(const ClassLossArgs& args, const Tensor& count) {
  return args.reduction == Reduction::Mean ? 1.0 / *count.data<double>() : 1.0;
}

// Writes per-position losses into `out` (None) or their total (divided by count for Mean)
// into the 0-d out. Blocks of fixed size keep the sum independent of the thread count.
template <class T, class LossFn>
void reduce_losses(int64_t n, const ClassLossArgs& args, double count, const Tensor& out, int64_t cost, LossFn loss) {
  if (args.reduction == Reduction::None) {
    T* po = out.data<T>();
    parallel_for(n, cost, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) po[p] = static_cast<T>(loss(p));
    });
    return;
  }
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(blocks, 0.0);
  parallel_for(blocks, cost * kBlock, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      double acc = 0;
      for (int64_t p = blk * kBlock; p < std::min(n, (blk + 1) * kBlock); ++p) acc += loss(p);
      partial[blk] = acc;
    }
  });
  double total = 0;
  for (double v : partial) total += v;
  if (args.reduction == Reduction::Mean) total /= count;  // 0/0 = NaN like PyTorch
  *out.data<T>() = static_cast<T>(total);
}

// -- cross entropy ----------------------------------------------------------------------------

// lse and sum of one position's scores x[c * stride].
template <class T>
void row_stats(const T* x, int64_t classes, int64_t stride, T& lse, T& sum) {
  T m = -std::numeric_limits<T>::infinity(), s = 0, total = 0;
  if (stride == 1) {
    m = cpu::lane_extremum<true>(x, classes, m);
#pragma omp simd reduction(+ : total)
    for (int64_t c = 0; c < classes; ++c) total += x[c];
#pragma omp simd reduction(+ : s)
    for (int64_t c = 0; c < classes; ++c) s += CpuMath::exp(x[c] - m);
  } else {
    for (int64_t c = 0; c < classes; ++c) m = x[c * stride] > m ? x[c * stride] : m, total += x[c * stride];
    for (int64_t c = 0; c < classes; ++c) s += CpuMath::exp(x[c * stride] - m);
  }
  lse = m + std::log(s);
  sum = total;
}

void cpu_cross_entropy(const Tensor& logits, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                       const Tensor& lse, const Tensor& count_out) {
  const ClassLayout ps = class_layout(logits.shape(), args.class_dim);
  const double count = check_targets(target, ps.classes, args.ignore_index, "cross_entropy", count_out);
  dispatch_float(logits.dtype(), "cross_entropy", [&]<class T>() {
    const T* x = logits.data<T>();
    const int64_t* t = target.data<int64_t>();
    T* plse = lse.data<T>();
    const T eps = static_cast<T>(args.label_smoothing);
    const T uniform = eps / static_cast<T>(ps.classes);
    reduce_losses<T>(ps.positions(), args, count, out, 3 * ps.classes, [&](int64_t p) -> double {
      if (t[p] == args.ignore_index) {
        plse[p] = 0;
        return 0.0;
      }
      const T* xp = x + ps.base(p);
      T l, total;
      row_stats(xp, ps.classes, ps.inner, l, total);
      plse[p] = l;
      const T xt = xp[t[p] * ps.inner];
      return static_cast<double>(eps == T(0) ? l - xt : l - (T(1) - eps) * xt - uniform * total);
    });
  });
}

void cpu_cross_entropy_backward(const Tensor& logits, const Tensor& target, const Tensor& lse, const Tensor& g,
                                const ClassLossArgs& args, const Tensor& count, const Tensor& dlogits) {
  const ClassLayout ps = class_layout(logits.shape(), args.class_dim);
  const double scale = loss_scale(args, count);
  const bool per_position = args.reduction == Reduction::None;
  dispatch_float(logits.dtype(), "cross_entropy_backward", [&]<class T>() {
    const T* x = logits.data<T>();
    const int64_t* t = target.data<int64_t>();
    const T* plse = lse.data<T>();
    const T* pg = g.data<T>();
    T* dx = dlogits.data<T>();
    const T eps = static_cast<T>(args.label_smoothing);
    const T uniform = eps / static_cast<T>(ps.classes);
    const int64_t n = ps.classes, st = ps.inner;
    parallel_for(ps.positions(), 2 * n, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* xp = x + ps.base(p);
        T* dp = dx + ps.base(p);
        const bool ignored = t[p] == args.ignore_index;
        const T gs = ignored ? T(0) : (per_position ? pg[p] : pg[0]) * static_cast<T>(scale);
        const T l = plse[p];
        if (st == 1) {
#pragma omp simd
          for (int64_t c = 0; c < n; ++c) dp[c] = (CpuMath::exp(xp[c] - l) - uniform) * gs;
        } else {
          for (int64_t c = 0; c < n; ++c) dp[c * st] = (CpuMath::exp(xp[c * st] - l) - uniform) * gs;
        }
        if (!ignored) dp[t[p] * st] -= (T(1) - eps) * gs;
      }
    });
  });
}

// -- nll loss ---------------------------------------------------------------------------------

void cpu_nll_loss(const Tensor& log_probs, const Tensor& target, const ClassLossArgs& args, const Tensor& out,
                  const Tensor& count_out) {
  const ClassLayout ps = class_layout(log_probs.shape(), args.class_dim);
  const double count = check_targets(target, ps.classes, args.ignore_index, "nll_loss", count_out);
  dispatch_float(log_probs.dtype(), "nll_loss", [&]<class T>() {
    const T* lp = log_probs.data<T>();
    const int64_t* t = target.data<int64_t>();
    reduce_losses<T>(ps.positions(), args, count, out, 1, [&](int64_t p) -> double {
      return t[p] == args.ignore_index ? 0.0 : -static_cast<double>(lp[ps.base(p) + t[p] * ps.inner]);
    });
  });
}

void cpu_nll_loss_backward(const Tensor& target, const Tensor& g, const ClassLossArgs& args, const Tensor& count,
                           const Tensor& dlog_probs) {
  const ClassLayout ps = class_layout(dlog_probs.shape(), args.class_dim);
  const double scale = loss_scale(args, count);
  const bool per_position = args.reduction == Reduction::None;
  dispatch_float(dlog_probs.dtype(), "nll_loss_backward", [&]<class T>() {
    T* d = dlog_probs.data<T>();
    const int64_t* t = target.data<int64_t>();
    const T* pg = g.data<T>();
    const int64_t numel = dlog_probs.numel();
    parallel_for(numel, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = 0;
    });
    for (int64_t p = 0; p < ps.positions(); ++p)
      if (t[p] != args.ignore_index)
        d[ps.base(p) + t[p] * ps.inner] = -(per_position ? pg[p] : pg[0]) * static_cast<T>(scale);
  });
}

[[maybe_unused]] const bool cross_entropy_bound =
    (cross_entropy_kernel.cpu = cpu_cross_entropy, cross_entropy_backward_kernel.cpu = cpu_cross_entropy_backward,
     nll_loss_kernel.cpu = cpu_nll_loss, nll_loss_backward_kernel.cpu = cpu_nll_loss_backward, true);

}  // namespace
}  // namespace hm
