// CUDA kernels of the fused optimizer updates and of clip_grad_norm_: multi-tensor launches
// (cuda/device/multi_tensor.cuh) running the HM_HD functions of optim/optim_functors.h, the
// same code as the CPU loops (optim/cpu_kernels.cpp). The run-time flags become template
// arguments, as on the CPU. In capturable mode each block computes its tensor's coefficients
// from the lr and step on the device and a one-thread kernel after each launch advances the
// steps of the tensors that launch finished. (Device pow may differ from the host's in the last
// bit of the double coefficient; the host twin and the CPU agree bit for bit.)
#include "harmonic/cuda/device/multi_tensor.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::cuda {
namespace {

using optim::AdamCoeffs;
using optim::AdamStep;
using optim::DeviceSchedule;
using optim::SgdCoeffs;
using optim::SgdStep;

// Adds 1 to the step of every tensor whose last chunk was in this batch.
template <int Depth>
HM_HD void advance_steps(const MultiTensorArgs<Depth>& a, double* table) {
  for (int b = 0; b < a.blocks; ++b)
    if (a.last_chunk(b)) table[1 + a.slot[a.tensor[b]]] += 1;
}

template <int Depth>
__global__ void advance_steps_kernel(MultiTensorArgs<Depth> a, double* table) {
  if (blockIdx.x == 0 && threadIdx.x == 0) advance_steps(a, table);
}

template <int Depth>
void after_batch(Exec exec, int device, const MultiTensorArgs<Depth>& a, const DeviceSchedule& sched) {
  if (!sched.defined()) return;
  double* table = static_cast<double*>(sched.table.raw_data());
  if (exec == Exec::Host) return advance_steps(a, table);
  DeviceGuard guard(device);
  advance_steps_kernel<Depth><<<1, 1, 0, stream(device)>>>(a, table);
  HM_CUDA_CHECK_LAUNCH();
}

template <class T, bool Momentum, bool Nesterov, bool First>
struct SgdMulti {
  SgdStep s;
  SgdCoeffs<T> fixed;
  const double* table;  // capturable: [lr, steps...]
  HM_HD SgdCoeffs<T> coeffs(const MultiTensorArgs<3>&, int) const { return table ? SgdCoeffs<T>(s, table[0]) : fixed; }
  HM_HD void operator()(const MultiTensorArgs<3>& a, int k, int64_t i, const SgdCoeffs<T>& c) const {
    T* p = static_cast<T*>(a.ptr[0][k]);
    const T* g = static_cast<const T*>(a.ptr[1][k]);
    if constexpr (Momentum) {
      optim::sgd_update<T, true, Nesterov, First>(p[i], g[i], static_cast<T*>(a.ptr[2][k])[i], c);
    } else {
      T unused = 0;
      optim::sgd_update<T, false, false, false>(p[i], g[i], unused, c);
    }
  }
};

template <Exec E>
void sgd_on(const optim::SgdLists& l, const SgdStep& s, const DeviceSchedule& sched) {
  const bool momentum = !l.momentum_buffers.empty();
  if (momentum)
    optim::check_lists("sgd", {&l.params, &l.grads, &l.momentum_buffers}, sched);
  else
    optim::check_lists("sgd", {&l.params, &l.grads}, sched);
  if (l.params.empty()) return;
  const int device = kernel_device(E, "sgd", {&l.params[0]});
  const double* table = sched.defined() ? static_cast<const double*>(sched.table.raw_data()) : nullptr;
  // Without momentum the third list is unused: the gradients stand in.
  std::array<const std::vector<Tensor>*, 3> lists{&l.params, &l.grads, momentum ? &l.momentum_buffers : &l.grads};
  dispatch_float(l.params[0].dtype(), "sgd", [&]<class T>() {
    auto run = [&](auto op) {
      multi_tensor_batches<3>(lists, sched.slots, kMultiTensorChunk, [&](const MultiTensorArgs<3>& a) {
        multi_tensor_launch(E, device, a, op);
        after_batch(E, device, a, sched);
      });
    };
    const SgdCoeffs<T> c(s);
    if (!momentum)
      run(SgdMulti<T, false, false, false>{s, c, table});
    else if (s.first)
      s.nesterov ? run(SgdMulti<T, true, true, true>{s, c, table}) : run(SgdMulti<T, true, false, true>{s, c, table});
    else
      s.nesterov ? run(SgdMulti<T, true, true, false>{s, c, table}) : run(SgdMulti<T, true, false, false>{s, c, table});
  });
}

template <class T, bool Amsgrad>
struct AdamMulti {
  AdamStep s;
  AdamCoeffs<T> fixed;
  const double* table;  // capturable: [lr, steps...]
  HM_HD AdamCoeffs<T> coeffs(const MultiTensorArgs<5>& a, int k) const {
    return table ? AdamCoeffs<T>(s, table[0], table[1 + a.slot[k]] + 1) : fixed;
  }
  HM_HD void operator()(const MultiTensorArgs<5>& a, int k, int64_t i, const AdamCoeffs<T>& c) const {
    T* p = static_cast<T*>(a.ptr[0][k]);
    const T* g = static_cast<const T*>(a.ptr[1][k]);
    T* m = static_cast<T*>(a.ptr[2][k]);
    T* v = static_cast<T*>(a.ptr[3][k]);
    if constexpr (Amsgrad) {
      optim::adam_update<T, true>(p[i], g[i], m[i], v[i], static_cast<T*>(a.ptr[4][k])[i], c);
    } else {
      T unused = 0;
      optim::adam_update<T, false>(p[i], g[i], m[i], v[i], unused, c);
    }
  }
};

template <Exec E>
void adam_on(const optim::AdamLists& l, const AdamStep& s, const DeviceSchedule& sched) {
  if (s.amsgrad)
    optim::check_lists("adam", {&l.params, &l.grads, &l.exp_avg, &l.exp_avg_sq, &l.max_exp_avg_sq}, sched);
  else
    optim::check_lists("adam", {&l.params, &l.grads, &l.exp_avg, &l.exp_avg_sq}, sched);
  if (l.params.empty()) return;
  const int device = kernel_device(E, "adam", {&l.params[0]});
  const double* table = sched.defined() ? static_cast<const double*>(sched.table.raw_data()) : nullptr;
  std::array<const std::vector<Tensor>*, 5> lists{&l.params, &l.grads, &l.exp_avg, &l.exp_avg_sq,
                                                  s.amsgrad ? &l.max_exp_avg_sq : &l.exp_avg_sq};
  dispatch_float(l.params[0].dtype(), "adam", [&]<class T>() {
    auto run = [&](auto op) {
      multi_tensor_batches<5>(lists, sched.slots, kMultiTensorChunk, [&](const MultiTensorArgs<5>& a) {
        multi_tensor_launch(E, device, a, op);
        after_batch(E, device, a, sched);
      });
    };
    const AdamCoeffs<T> c(s);
    if (s.amsgrad)
      run(AdamMulti<T, true>{s, c, table});
    else
      run(AdamMulti<T, false>{s, c, table});
  });
}

// -- clip_grad_norm_ --------------------------------------------------------------------------

// One block per chunk, one thread per lane: sums[chunk] = the lanes' pairwise tree.
template <class T>
__global__ void __launch_bounds__(optim::kClipLanes) clip_chunk_sums_kernel(MultiTensorArgs<1> a, double* sums) {
  __shared__ double lanes[optim::kClipLanes];
  const int b = blockIdx.x, k = a.tensor[b], t = threadIdx.x;
  const int64_t begin = int64_t{a.chunk[b]} * a.chunk_size;
  const int64_t n = begin + a.chunk_size < a.numel[k] ? a.chunk_size : a.numel[k] - begin;
  lanes[t] = optim::clip_lane_sum(static_cast<const T*>(a.ptr[0][k]) + begin, n, t);
  __syncthreads();
  for (int half = optim::kClipLanes / 2; half > 0; half /= 2) {  // optim::clip_tree_sum's order
    if (t < half) lanes[t] += lanes[t + half];
    __syncthreads();
  }
  if (t == 0) sums[a.chunk_base[k] + a.chunk[b]] = lanes[0];
}

template <class T>
void clip_chunk_sums(Exec exec, int device, const MultiTensorArgs<1>& a, double* sums) {
  if (exec == Exec::Host) {
    for (int b = 0; b < a.blocks; ++b) {
      const int k = a.tensor[b];
      const int64_t begin = int64_t{a.chunk[b]} * a.chunk_size;
      const int64_t n = std::min(a.chunk_size, a.numel[k] - begin);
      double lanes[optim::kClipLanes];
      for (int t = 0; t < optim::kClipLanes; ++t)
        lanes[t] = optim::clip_lane_sum(static_cast<const T*>(a.ptr[0][k]) + begin, n, t);
      sums[a.chunk_base[k] + a.chunk[b]] = optim::clip_tree_sum(lanes);
    }
    return;
  }
  DeviceGuard guard(device);
  clip_chunk_sums_kernel<T><<<a.blocks, optim::kClipLanes, 0, stream(device)>>>(a, sums);
  HM_CUDA_CHECK_LAUNCH();
}

// The tensors of one batch, in order: total_sq += (norm rounded to T)^2.
template <class T>
HM_HD void clip_add_norms(const MultiTensorArgs<1>& a, const double* sums, double* total_sq) {
  for (int b = 0; b < a.blocks; ++b)
    if (a.last_chunk(b)) {
      const int k = a.tensor[b];
      *total_sq += optim::clip_norm_square<T>(sums + a.chunk_base[k], a.chunks_of(k));
    }
}

template <class T>
__global__ void clip_add_norms_kernel(MultiTensorArgs<1> a, const double* sums, double* total_sq) {
  if (blockIdx.x == 0 && threadIdx.x == 0) clip_add_norms<T>(a, sums, total_sq);
}

template <Exec E>
void clip_norm_sq_on(const std::vector<Tensor>& grads, const Tensor& total_sq) {
  optim::check_lists("clip_norm_sq", {&grads}, {});
  if (grads.empty()) return;
  const int device = kernel_device(E, "clip_norm_sq", {&grads[0], &total_sq});
  int64_t chunks = 0;
  for (const Tensor& g : grads) chunks += std::max<int64_t>(1, (g.numel() + optim::kClipChunk - 1) / optim::kClipChunk);
  const Tensor sums = Tensor::empty({chunks}, DType::Float64, grads[0].device());
  double* s = static_cast<double*>(sums.raw_data());
  double* total = static_cast<double*>(total_sq.raw_data());
  dispatch_float(grads[0].dtype(), "clip_norm_sq", [&]<class T>() {
    multi_tensor_batches<1>({&grads}, {}, optim::kClipChunk, [&](const MultiTensorArgs<1>& a) {
      clip_chunk_sums<T>(E, device, a, s);
      if (E == Exec::Host) return clip_add_norms<T>(a, s, total);
      DeviceGuard guard(device);
      clip_add_norms_kernel<T><<<1, 1, 0, stream(device)>>>(a, s, total);
      HM_CUDA_CHECK_LAUNCH();
    });
  });
}

template <class T>
struct ClipScale {
  const double* total;
  double max_norm;
  HM_HD T coeffs(const MultiTensorArgs<1>&, int) const { return T(optim::clip_coefficient(max_norm, *total)); }
  HM_HD void operator()(const MultiTensorArgs<1>& a, int k, int64_t i, T c) const {
    T* g = static_cast<T*>(a.ptr[0][k]);
    g[i] = g[i] * c;
  }
};

template <Exec E>
void clip_scale_on(const std::vector<Tensor>& grads, const Tensor& total, double max_norm) {
  optim::check_lists("clip_scale", {&grads}, {});
  if (grads.empty()) return;
  const int device = kernel_device(E, "clip_scale", {&grads[0], &total});
  const double* t = static_cast<const double*>(total.raw_data());
  dispatch_float(grads[0].dtype(), "clip_scale", [&]<class T>() {
    multi_tensor_batches<1>({&grads}, {}, kMultiTensorChunk, [&](const MultiTensorArgs<1>& a) {
      multi_tensor_launch(E, device, a, ClipScale<T>{t, max_norm});
    });
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(optim::sgd_kernel, sgd_on<Exec::Device>, sgd_on<Exec::Host>) &&
    bind_cuda(optim::adam_kernel, adam_on<Exec::Device>, adam_on<Exec::Host>) &&
    bind_cuda(optim::clip_norm_sq_kernel, clip_norm_sq_on<Exec::Device>, clip_norm_sq_on<Exec::Host>) &&
    bind_cuda(optim::clip_scale_kernel, clip_scale_on<Exec::Device>, clip_scale_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
