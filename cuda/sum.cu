// CUDA sum over any set of dims, deterministic (no atomics). The input is read in place
// through two offset calculators: kept index o -> x offset, reduced index r -> x offset.
//   row layout    (reduced memory contiguous): a warp or a whole block per output, lanes
//                 stride along r, warp-shuffle tree then the warps of a block in order.
//   column layout (kept memory contiguous): 32 outputs per block side by side (coalesced),
//                 8 rows of threads stride along r, combined in order through shared memory.
// When there are too few outputs to fill the device, r is split over grid.y: pass one
// writes (splits, m) partial sums, pass two sums them with the same code. bfloat16 inputs
// accumulate in float32 into a float32 result, rounded to bfloat16 once at the end.
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/sum_kernels.h"

namespace hm::cuda {
namespace {

constexpr int kColLanes = 32, kColRows = 8, kColThreads = 256;  // column layout block: (32, 8)

template <class In, class T>  // In: the input's element type; T: the accumulator's and out's
struct SumPass {
  const In* x;
  T* out;                 // (splits, m): split s of output o at s * m + o
  OffsetCalc<1> kept;     // o -> offset in x
  OffsetCalc<1> reduced;  // r -> offset in x
  int64_t m, r_total, chunk;
  int lanes;  // row layout: threads per output (32 or kThreads)

  // x summed over r = begin, begin + step, ... below the end of split s.
  HM_HD T partial(int64_t o, int64_t s, int64_t begin, int64_t step) const {
    T acc = T(0);
    if (o >= m) return acc;
    const int64_t base = kept.get(o).v[0];
    const int64_t end = s * chunk + chunk < r_total ? s * chunk + chunk : r_total;
    for (int64_t r = s * chunk + begin; r < end; r += step) acc += convert<T>(x[base + reduced.get(r).v[0]]);
    return acc;
  }
};

template <class T>
__device__ T warp_sum(T v) {  // lane 0 gets the tree sum ((v0 + v16) + (v8 + v24)) + ...
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

template <class In, class T>
__global__ void __launch_bounds__(kThreads) sum_rows_kernel(SumPass<In, T> p) {
  __shared__ T warp_sums[kThreads / 32];
  const int group = threadIdx.x / p.lanes, lane = threadIdx.x % p.lanes;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * (kThreads / p.lanes) + group;
  const T v = warp_sum(p.partial(o, blockIdx.y, lane, p.lanes));
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (lane == 0 && o < p.m) {
    const int warps = p.lanes / 32, first = group * warps;
    T acc = warp_sums[first];
    for (int w = 1; w < warps; ++w) acc += warp_sums[first + w];
    p.out[static_cast<int64_t>(blockIdx.y) * p.m + o] = acc;
  }
}

template <class In, class T>
__global__ void __launch_bounds__(kColThreads) sum_columns_kernel(SumPass<In, T> p) {
  __shared__ T rows[kColRows][kColLanes];
  const int64_t o = static_cast<int64_t>(blockIdx.x) * kColLanes + threadIdx.x;
  rows[threadIdx.y][threadIdx.x] = p.partial(o, blockIdx.y, threadIdx.y, kColRows);
  __syncthreads();
  if (threadIdx.y == 0 && o < p.m) {
    T acc = rows[0][threadIdx.x];
    for (int y = 1; y < kColRows; ++y) acc += rows[y][threadIdx.x];
    p.out[static_cast<int64_t>(blockIdx.y) * p.m + o] = acc;
  }
}

// The host twin: the same blocks, threads and summation order, one thread at a time.
template <class In, class T>
void sum_rows_host(const SumPass<In, T>& p, int64_t blocks, int64_t splits) {
  const int per_block = kThreads / p.lanes;
  std::vector<T> v(p.lanes);
  for (int64_t s = 0; s < splits; ++s)
    for (int64_t bx = 0; bx < blocks; ++bx)
      for (int g = 0; g < per_block; ++g) {
        const int64_t o = bx * per_block + g;
        if (o >= p.m) continue;
        for (int lane = 0; lane < p.lanes; ++lane) v[lane] = p.partial(o, s, lane, p.lanes);
        for (int w = 0; w < p.lanes; w += 32)  // warp_sum's tree inside each warp
          for (int offset = 16; offset > 0; offset >>= 1)
            for (int l = 0; l < offset; ++l) v[w + l] += v[w + l + offset];
        T acc = v[0];
        for (int w = 32; w < p.lanes; w += 32) acc += v[w];
        p.out[s * p.m + o] = acc;
      }
}

template <class In, class T>
void sum_columns_host(const SumPass<In, T>& p, int64_t blocks, int64_t splits) {
  for (int64_t s = 0; s < splits; ++s)
    for (int64_t o = 0; o < blocks * kColLanes && o < p.m; ++o) {
      T acc = p.partial(o, s, 0, kColRows);
      for (int y = 1; y < kColRows; ++y) acc += p.partial(o, s, y, kColRows);
      p.out[s * p.m + o] = acc;
    }
}

// Sums x (read through kept / reduced) into out (m,), splitting r when outputs are few.
template <class In, class T>
void sum_pass(Exec exec, const Tensor& like, const In* x, T* out, const OffsetCalc<1>& kept,
              const OffsetCalc<1>& reduced, int64_t m, int64_t r_total) {
  const int device = like.device().index;
  const auto inner_stride = [](const OffsetCalc<1>& c) { return c.ndim == 0 ? 1 : c.strides[0][0]; };
  const bool rows = inner_stride(reduced) == 1 || (inner_stride(kept) != 1 && r_total >= m);
  const int lanes = rows && r_total >= 2048 ? kThreads : 32;
  const int64_t per_block = rows ? kThreads / lanes : kColLanes;
  const int64_t blocks = (m + per_block - 1) / per_block;
  // Split r while the grid is small and every thread still gets >= 16 elements.
  const int64_t threads_along_r = rows ? lanes : kColRows;
  const int64_t target_blocks = exec == Exec::Device ? int64_t{8} * sm_count(device) : 512;
  int64_t splits = std::min({(target_blocks + blocks - 1) / blocks, r_total / (threads_along_r * 16), int64_t{1024}});
  splits = std::max<int64_t>(splits, 1);
  const int64_t chunk = (r_total + splits - 1) / splits;
  splits = (r_total + chunk - 1) / chunk;

  Tensor partials;  // (splits, m) when r is split
  if (splits > 1) partials = Tensor::empty({splits, m}, dtype_of<T>(), like.device());
  T* dst = splits > 1 ? static_cast<T*>(partials.raw_data()) : out;
  const SumPass<In, T> p{x, dst, kept, reduced, m, r_total, chunk, lanes};
  if (exec == Exec::Host) {
    rows ? sum_rows_host(p, blocks, splits) : sum_columns_host(p, blocks, splits);
  } else {
    DeviceGuard guard(device);
    if (rows)
      sum_rows_kernel<In, T><<<dim3(blocks, splits), kThreads, 0, stream(device)>>>(p);
    else
      sum_columns_kernel<In, T><<<dim3(blocks, splits), dim3(kColLanes, kColRows), 0, stream(device)>>>(p);
    HM_CUDA_CHECK_LAUNCH();
  }
  if (splits > 1) {  // pass two: out[o] = sum over s of partials[s, o]
    const Strides unit{1}, row{m};
    sum_pass<T, T>(exec, like, dst, out, make_offset_calc<1>({m}, {&unit}, "sum"),
                make_offset_calc<1>({splits}, {&row}, "sum"), m, splits);
  }
}

void sum(Exec exec, const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  kernel_device(exec, "sum", {&x, &out});
  check(out.is_contiguous() && out.dtype() == x.dtype(), "sum", "bad output {} for input {}", out.desc(), x.desc());
  if (x.numel() == 0 || out.numel() == 0) {
    if (out.numel() > 0) fill_kernel(out.device(), out, 0.0);
    return;
  }
  Shape reduced_shape;
  Strides reduced_strides;
  for (int64_t d : dims) reduced_shape.push_back(x.shape()[d]), reduced_strides.push_back(x.strides()[d]);
  const OffsetCalc<1> kept = make_offset_calc<1>(out.shape(), {&x.strides()}, "sum");
  const OffsetCalc<1> reduced = make_offset_calc<1>(reduced_shape, {&reduced_strides}, "sum");
  if (x.dtype() == DType::BFloat16) {
    Tensor sums = Tensor::empty(out.shape(), DType::Float32, out.device());
    sum_pass<Bf16, float>(exec, x, static_cast<const Bf16*>(x.raw_data()), static_cast<float*>(sums.raw_data()),
                          kept, reduced, out.numel(), numel_of(reduced_shape));
    copy_kernel(out.device(), sums, out);
    return;
  }
  dispatch_numeric(x.dtype(), "sum", [&]<class T>() {
    sum_pass<T, T>(exec, x, static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), kept, reduced,
                   out.numel(), numel_of(reduced_shape));
  });
}

template <Exec E>
void sum_on(const Tensor& x, const std::vector<int64_t>& dims, const Tensor& out) {
  sum(E, x, dims, out);
}

[[maybe_unused]] const bool bound = bind_cuda(sum_kernel, sum_on<Exec::Device>, sum_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
