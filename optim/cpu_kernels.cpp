// CPU kernels of the fused optimizer updates and of clip_grad_norm_: one parallel region over
// the concatenated element ranges of all the list's tensors (a thread's share may cross
// tensor boundaries), the per-element functor of optim/optim_functors.h inlined into a loop
// that vectorises. The run-time flags (momentum, Nesterov, first step, amsgrad) become
// template arguments so no branch remains inside the loop.
#include <algorithm>

#include "harmonic/core/parallel.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {
namespace {

// Work per element in "element operations" for parallel_for's grain (Adam does a sqrt and a
// division and touches five arrays).
constexpr int64_t kSgdCost = 4;
constexpr int64_t kAdamCost = 16;

// Calls piece(k, begin, end) for the parts of tensors k that [0, total) splits into, in one
// parallel region over the concatenated element ranges.
template <class F>
void optim_for_each_piece(const std::vector<Tensor>& params, int64_t cost, F&& piece) {
  std::vector<int64_t> offsets(params.size() + 1, 0);
  for (size_t k = 0; k < params.size(); ++k) offsets[k + 1] = offsets[k] + params[k].numel();
  parallel_for(offsets.back(), cost, [&](int64_t begin, int64_t end) {
    size_t k = std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1;
    for (; begin < end; ++k) {
      const int64_t stop = std::min(end, offsets[k + 1]);
      if (stop > begin) piece(k, begin - offsets[k], stop - offsets[k]);
      begin = std::max(begin, stop);
    }
  });
}

// The step's lr, or the group's lr on the device table (capturable mode: the table is host memory here).
double optim_schedule_lr(double lr, const DeviceSchedule& sched) { return sched.defined() ? sched.table.data<double>()[0] : lr; }
// The step applied to list entry k.
double optim_schedule_step(int64_t step, const DeviceSchedule& sched, size_t k) {
  return sched.defined() ? sched.table.data<double>()[1 + sched.slots[k]] + 1 : double(step);
}
void optim_advance_steps(const DeviceSchedule& sched) {
  if (!sched.defined()) return;
  double* table = sched.table.data<double>();
  for (int32_t slot : sched.slots) table[1 + slot] += 1;
}

template <class T>
std::vector<T*> optim_pointers(const std::vector<Tensor>& list) {
  std::vector<T*> out;
  for (const Tensor& t : list) out.push_back(t.data<T>());
  return out;
}

template <class T, bool Momentum, bool Nesterov, bool First>
void sgd_loop(const SgdLists& l, const SgdCoeffs<T>& c) {
  const std::vector<T*> p = optim_pointers<T>(l.params), g = optim_pointers<T>(l.grads), buf = optim_pointers<T>(l.momentum_buffers);
  optim_for_each_piece(l.params, kSgdCost, [&](size_t k, int64_t begin, int64_t end) {
    T* pk = p[k];
    const T* gk = g[k];
    if constexpr (Momentum) {
      T* bk = buf[k];
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) sgd_update<T, true, Nesterov, First>(pk[i], gk[i], bk[i], c);
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T unused = 0;
        sgd_update<T, false, false, false>(pk[i], gk[i], unused, c);
      }
    }
  });
}

void cpu_sgd(const SgdLists& l, const SgdStep& s, const DeviceSchedule& sched) {
  if (l.momentum_buffers.empty())
    check_lists("sgd", {&l.params, &l.grads}, sched);
  else
    check_lists("sgd", {&l.params, &l.grads, &l.momentum_buffers}, sched);
  if (l.params.empty()) return;
  dispatch_float(l.params[0].dtype(), "sgd", [&]<class T>() {
    const SgdCoeffs<T> c(s, optim_schedule_lr(s.lr, sched));
    if (l.momentum_buffers.empty())
      sgd_loop<T, false, false, false>(l, c);
    else if (s.first)
      s.nesterov ? sgd_loop<T, true, true, true>(l, c) : sgd_loop<T, true, false, true>(l, c);
    else
      s.nesterov ? sgd_loop<T, true, true, false>(l, c) : sgd_loop<T, true, false, false>(l, c);
  });
  optim_advance_steps(sched);
}

template <class T, bool Amsgrad>
void adam_loop(const AdamLists& l, const std::vector<AdamCoeffs<T>>& coeffs) {
  const std::vector<T*> p = optim_pointers<T>(l.params), g = optim_pointers<T>(l.grads), m = optim_pointers<T>(l.exp_avg),
                        v = optim_pointers<T>(l.exp_avg_sq), vmax = optim_pointers<T>(l.max_exp_avg_sq);
  optim_for_each_piece(l.params, kAdamCost, [&](size_t k, int64_t begin, int64_t end) {
    const AdamCoeffs<T> c = coeffs[k];
    T *pk = p[k], *mk = m[k], *vk = v[k];
    const T* gk = g[k];
    if constexpr (Amsgrad) {
      T* xk = vmax[k];
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) adam_update<T, true>(pk[i], gk[i], mk[i], vk[i], xk[i], c);
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T unused = 0;
        adam_update<T, false>(pk[i], gk[i], mk[i], vk[i], unused, c);
      }
    }
  });
}

void cpu_adam(const AdamLists& l, const AdamStep& s, const DeviceSchedule& sched) {
  if (s.amsgrad)
    check_lists("adam", {&l.params, &l.grads, &l.exp_avg, &l.exp_avg_sq, &l.max_exp_avg_sq}, sched);
  else
    check_lists("adam", {&l.params, &l.grads, &l.exp_avg, &l.exp_avg_sq}, sched);
  if (l.params.empty()) return;
  dispatch_float(l.params[0].dtype(), "adam", [&]<class T>() {
    std::vector<AdamCoeffs<T>> coeffs;
    const double lr = optim_schedule_lr(s.lr, sched);
    for (size_t k = 0; k < l.params.size(); ++k) coeffs.emplace_back(s, lr, optim_schedule_step(s.step, sched, k));
    if (s.amsgrad)
      adam_loop<T, true>(l, coeffs);
    else
      adam_loop<T, false>(l, coeffs);
  });
  optim_advance_steps(sched);
}

// clip_grad_norm_: every chunk's lane sums and tree in parallel, then the tensors in order.
void cpu_clip_norm_sq(const std::vector<Tensor>& grads, const Tensor& total_sq) {
  check_lists("clip_norm_sq", {&grads}, {});
  if (grads.empty()) return;
  dispatch_float(grads[0].dtype(), "clip_norm_sq", [&]<class T>() {
    std::vector<int64_t> first_chunk(grads.size() + 1, 0);
    for (size_t k = 0; k < grads.size(); ++k)
      first_chunk[k + 1] = first_chunk[k] + (grads[k].numel() + kClipChunk - 1) / kClipChunk;
    std::vector<double> sums(first_chunk.back());
    const std::vector<T*> g = optim_pointers<T>(grads);
    parallel_for(first_chunk.back(), kClipChunk, [&](int64_t begin, int64_t end) {
      size_t k = std::upper_bound(first_chunk.begin(), first_chunk.end(), begin) - first_chunk.begin() - 1;
      for (int64_t c = begin; c < end; ++c) {
        while (c >= first_chunk[k + 1]) ++k;
        const int64_t start = (c - first_chunk[k]) * kClipChunk;
        const int64_t n = std::min(kClipChunk, grads[k].numel() - start);
        // clip_lane_sum for every lane, element rows outermost so the lanes vectorise (same order per lane).
        const T* x = g[k] + start;
        double lanes[kClipLanes] = {};
        for (int64_t row = 0; row < n; row += kClipLanes) {
          const int64_t width = std::min<int64_t>(kClipLanes, n - row);
#pragma omp simd
          for (int64_t t = 0; t < width; ++t) lanes[t] = std::fma(double(x[row + t]), double(x[row + t]), lanes[t]);
        }
        sums[c] = clip_tree_sum(lanes);
      }
    });
    double& total = total_sq.data<double>()[0];
    for (size_t k = 0; k < grads.size(); ++k)
      total += clip_norm_square<T>(sums.data() + first_chunk[k], first_chunk[k + 1] - first_chunk[k]);
  });
}

void cpu_clip_scale(const std::vector<Tensor>& grads, const Tensor& total, double max_norm) {
  check_lists("clip_scale", {&grads}, {});
  if (grads.empty()) return;
  dispatch_float(grads[0].dtype(), "clip_scale", [&]<class T>() {
    const T coef = T(clip_coefficient(max_norm, total.data<double>()[0]));
    const std::vector<T*> g = optim_pointers<T>(grads);
    optim_for_each_piece(grads, 1, [&](size_t k, int64_t begin, int64_t end) {
      T* gk = g[k];
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) gk[i] = gk[i] * coef;
    });
  });
}

[[maybe_unused]] const bool cpu_kernels_bound =
    (sgd_kernel.cpu = cpu_sgd, adam_kernel.cpu = cpu_adam, clip_norm_sq_kernel.cpu = cpu_clip_norm_sq,
     clip_scale_kernel.cpu = cpu_clip_scale, true);

}  // namespace
}  // namespace hm::optim
