// Row reductions for the nn kernels (softmax, losses, norms): a group of `lanes` threads
// (one warp, or the whole 256-thread block for long rows) owns one row. Each lane folds the
// elements lane, lane + lanes, ... of the row; the group then combines the lane values with
// an xor-butterfly inside each warp and the warps of the block in order. The host twins run
// the same lane partials and the same combination tree (host_group_reduce), so they give
// the device's numbers on the CPU.
//
// reduce_total: a deterministic grand total in double of f(p) for p in [0, n) (loss sums,
// target counts): fixed blocks of partial sums, then one block adds them in order.
#pragma once
#include <vector>

#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/cuda/runtime/graph.h"

namespace hm::cuda {

struct MaxOp {
  template <class T>
  HM_HD T operator()(T a, T b) const {
    return a > b ? a : b;
  }
};
struct AddOp {
  template <class T>
  HM_HD T operator()(T a, T b) const {
    return a + b;
  }
};

// Lanes per row: a warp for short rows, the whole block for long ones.
inline int row_lanes(int64_t row_length) { return row_length >= 1024 ? kThreads : 32; }

// Combines v over the `lanes` threads of the caller's group; every lane gets the result.
// `smem` holds kThreads / 32 values; all threads of the block must call it together.
template <class T, class Op>
__device__ T group_reduce(T v, int lanes, Op op, T* smem) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (lanes == 32) return v;
  __syncthreads();  // smem may still be read by a previous call
  if (threadIdx.x % 32 == 0) smem[threadIdx.x / 32] = v;
  __syncthreads();
  T acc = smem[0];
  for (int w = 1; w < kThreads / 32; ++w) acc = op(acc, smem[w]);
  return acc;
}

// Host mirror of group_reduce over the lane values v (lanes entries; clobbered).
template <class T, class Op>
T host_group_reduce(std::vector<T>& v, int lanes, Op op) {
  std::vector<T> next(32);
  for (int w = 0; w < lanes; w += 32) {
    for (int o = 16; o > 0; o >>= 1) {
      for (int l = 0; l < 32; ++l) next[l] = op(v[w + l], v[w + (l ^ o)]);
      for (int l = 0; l < 32; ++l) v[w + l] = next[l];
    }
  }
  T acc = v[0];
  for (int w = 32; w < lanes; w += 32) acc = op(acc, v[w]);
  return acc;
}

// Launch geometry of a row kernel: kThreads / lanes rows per block.
struct RowGrid {
  int64_t rows;
  int lanes;
  int64_t blocks() const { return (rows + kThreads / lanes - 1) / (kThreads / lanes); }
};

// Row of the calling thread (may be >= rows: such threads must still join group_reduce).
__device__ inline int64_t my_row(int lanes) {
  return static_cast<int64_t>(blockIdx.x) * (kThreads / lanes) + threadIdx.x / lanes;
}
__device__ inline int my_lane(int lanes) { return static_cast<int>(threadIdx.x % lanes); }

// -- grand totals ---------------------------------------------------------------------------

constexpr int kTotalBlocks = 128;

template <class F>
__global__ void __launch_bounds__(kThreads) total_pass_kernel(F f, int64_t n, double* partial) {
  __shared__ double smem[kThreads / 32];
  double acc = 0;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; p < n;
       p += static_cast<int64_t>(gridDim.x) * kThreads)
    acc += f(p);
  acc = group_reduce(acc, kThreads, AddOp{}, smem);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// A total's divisor: a host value, or a word in kernel memory (a count that stays on the device).
struct Divisor {
  double value = 1.0;
  const double* in_kernel_memory = nullptr;
  Divisor(double v) : value(v) {}  // NOLINT: a plain number converts
  explicit Divisor(const double* p) : in_kernel_memory(p) {}
  HM_HD double get() const { return in_kernel_memory ? *in_kernel_memory : value; }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    total_final_kernel(const double* partial, int blocks, Divisor divisor, T* out) {
  __shared__ double smem[kThreads / 32];
  double acc = threadIdx.x < blocks ? partial[threadIdx.x] : 0.0;
  acc = group_reduce(acc, kThreads, AddOp{}, smem);
  if (threadIdx.x == 0) *out = static_cast<T>(acc / divisor.get());
}

// *out = T(sum_p f(p) / divisor), out on the device (or host memory for the twin). The
// thread -> element assignment and the combination order are the same on both.
template <class T, class F>
void reduce_total(Exec exec, int device, int64_t n, const F& f, Divisor divisor, T* out) {
  static_assert(std::is_trivially_copyable_v<F>, "kernel functors are copied to the device");
  const int64_t per_block = kThreads;
  const int blocks = static_cast<int>(std::clamp<int64_t>((n + per_block - 1) / per_block, 1, kTotalBlocks));
  if (exec == Exec::Host) {
    std::vector<double> partial(blocks), lane(kThreads);
    for (int b = 0; b < blocks; ++b) {
      for (int t = 0; t < kThreads; ++t) {
        double acc = 0;
        for (int64_t p = int64_t{b} * kThreads + t; p < n; p += int64_t{blocks} * kThreads) acc += f(p);
        lane[t] = acc;
      }
      partial[b] = host_group_reduce(lane, kThreads, AddOp{});
    }
    for (int t = 0; t < kThreads; ++t) lane[t] = t < blocks ? partial[t] : 0.0;
    *out = static_cast<T>(host_group_reduce(lane, kThreads, AddOp{}) / divisor.get());
    return;
  }
  DeviceGuard guard(device);
  Tensor partial = Tensor::empty({blocks}, DType::Float64, Device::cuda(device));
  double* pp = static_cast<double*>(partial.raw_data());
  total_pass_kernel<<<blocks, kThreads, 0, stream(device)>>>(f, n, pp);
  HM_CUDA_CHECK_LAUNCH();
  total_final_kernel<T><<<1, kThreads, 0, stream(device)>>>(pp, blocks, divisor, out);
  HM_CUDA_CHECK_LAUNCH();
}

// Copies n values from kernel memory (device or host-twin memory) into host memory.
template <class T>
void read_back(Exec exec, int device, const T* src, T* dst, int64_t n) {
  check_not_capturing(device, "read_back", "reads a kernel's result on the host (an index check outside a "
                                           "DeferredChecks scope)");
  count_host_wait(device);
  if (exec == Exec::Host) {
    std::copy(src, src + n, dst);
    return;
  }
  DeviceGuard guard(device);
  HM_CUDA_CHECK(cudaMemcpyAsync(dst, src, sizeof(T) * n, cudaMemcpyDeviceToHost, stream(device)));
  HM_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
}

// -- row kernels ----------------------------------------------------------------------------
// A row op K (trivially copyable) with T = K::Acc supplies three lane partials, combined
// over the row in turn (the first with K::Op1, the others added), and the row's writes:
//   T part1(row, lane, lanes), T part2(row, lane, lanes, r1), T part3(row, lane, lanes, r1, r2),
//   void write(row, lane, lanes, r1, r2, r3).
// Ops that need fewer reductions return T(0) from the spare parts.

template <class K>
__global__ void __launch_bounds__(kThreads) row_kernel(K k, int64_t rows, int lanes) {
  using T = typename K::Acc;
  __shared__ T smem[kThreads / 32];
  const int64_t r = my_row(lanes);
  const int lane = my_lane(lanes);
  const bool live = r < rows;  // a dead row's threads still join the block-wide reductions
  const T r1 = group_reduce(live ? k.part1(r, lane, lanes) : T(0), lanes, typename K::Op1{}, smem);
  const T r2 = group_reduce(live ? k.part2(r, lane, lanes, r1) : T(0), lanes, AddOp{}, smem);
  const T r3 = group_reduce(live ? k.part3(r, lane, lanes, r1, r2) : T(0), lanes, AddOp{}, smem);
  if (live) k.write(r, lane, lanes, r1, r2, r3);
}

template <class K>
void run_rows(Exec exec, int device, const K& k, int64_t rows, int64_t row_length) {
  static_assert(std::is_trivially_copyable_v<K>, "kernel functors are copied to the device");
  using T = typename K::Acc;
  if (rows <= 0) return;
  const RowGrid grid{rows, row_lanes(row_length)};
  if (exec == Exec::Host) {
    const int lanes = grid.lanes;
    std::vector<T> v(lanes);
    for (int64_t r = 0; r < rows; ++r) {
      for (int l = 0; l < lanes; ++l) v[l] = k.part1(r, l, lanes);
      const T r1 = host_group_reduce(v, lanes, typename K::Op1{});
      for (int l = 0; l < lanes; ++l) v[l] = k.part2(r, l, lanes, r1);
      const T r2 = host_group_reduce(v, lanes, AddOp{});
      for (int l = 0; l < lanes; ++l) v[l] = k.part3(r, l, lanes, r1, r2);
      const T r3 = host_group_reduce(v, lanes, AddOp{});
      for (int l = 0; l < lanes; ++l) k.write(r, l, lanes, r1, r2, r3);
    }
    return;
  }
  DeviceGuard guard(device);
  row_kernel<<<static_cast<unsigned>(grid.blocks()), kThreads, 0, stream(device)>>>(k, rows, grid.lanes);
  HM_CUDA_CHECK_LAUNCH();
}

}  // namespace hm::cuda
