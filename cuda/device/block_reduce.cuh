// Block reductions for the CUDA reduce kernels (cuda/extrema.cu, moments.cu, norms.cu), with their host twins.
//
// An op reduces x (outer, r, inner) over r: element k of output o = (o / inner, o % inner)
// sits at x[base(o) + k * inner]. A group of `lanes` threads (a power of two) per output
// strides along k, then the groups combine their partials in a fixed tree in shared memory,
// in one or two passes (moments and logsumexp need the mean / max before their second
// pass). Deterministic: no atomics, the same order on every run.
//   rows    (inner == 1): the lanes of a group are adjacent threads (coalesced along k);
//   columns (inner > 1):  adjacent threads are adjacent outputs (coalesced along inner).
// Few outputs over a long r (a full reduction, per-channel statistics) would leave most of
// the device idle, so r is then split over the grid: partials per (split, output) go to a
// scratch buffer and a second launch combines them in split order (two-pass ops run each
// pass that way, the first pass's result per output kept in a buffer).
// The host twin runs the same per-thread partials and the same tree, thread by thread.
//
// An op provides: Acc (trivially copyable), kPasses (1 or 2), identity(pass),
// step(pass, acc, offset, k, done) folding in x[offset] (done: the earlier passes' results),
// combine(pass, a, b), after_pass(pass, total) -> done[pass], finish(o, done).
#pragma once
#include <algorithm>
#include <vector>

#include "harmonic/cuda/device/launch.cuh"

namespace hm::cuda {

constexpr int kReduceThreads = 256;  // threads per block of the reduction kernels

struct ReduceGeometry {
  int64_t m = 0, r = 0, inner = 1;  // outputs (outer * inner), reduced length, inner size
  int64_t outs = 0, chunk = 0;      // split launches: m = splits * outs, split s covers chunk s of k
  int lanes = 1;                    // threads per output: a power of two <= kReduceThreads
  bool rows = true;                 // lanes adjacent (rows) or kReduceThreads / lanes apart (columns)
  HM_HD int groups() const { return kReduceThreads / lanes; }
  HM_HD int lane_of(int t) const { return rows ? t % lanes : t / groups(); }
  HM_HD int group_of(int t) const { return rows ? t / lanes : t % groups(); }
  HM_HD int lane_stride() const { return rows ? 1 : groups(); }  // shared slot of lane l + 1 minus lane l
  HM_HD int64_t base(int64_t o) const { return (o / inner) * r * inner + o % inner; }
};

// The (outer, r, inner) sizes of a reduce kernel's input, which must be that contiguous view.
struct ReduceDims {
  int64_t outer, r, inner;
};

inline ReduceDims reduce_dims(const Tensor& x, std::string_view fn) {
  check(x.dim() == 3 && x.is_contiguous(), fn, "expected a contiguous (outer, r, inner) input, got {}", x.desc());
  return {x.shape()[0], x.shape()[1], x.shape()[2]};
}

inline int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

inline ReduceGeometry reduce_geometry(int64_t outer, int64_t r, int64_t inner) {
  ReduceGeometry g{outer * inner, r, inner, outer * inner, r};
  g.rows = inner == 1;
  // Rows: a warp per output, a whole block once r is long. Columns: 8 threads along k for
  // 32 adjacent outputs, more along k when there are few outputs.
  const int64_t want =
      g.rows ? (r >= 4096 ? kReduceThreads : 32) : std::max<int64_t>(8, kReduceThreads / pow2_at_least(g.m));
  g.lanes = static_cast<int>(std::min({pow2_at_least(std::max<int64_t>(r, 1)), want, int64_t{kReduceThreads}}));
  return g;
}

// The earlier passes' results step() sees for output o: the thread's own (fused passes), or
// what op.context reads from a buffer (a pass run as its own split launch, PassR below).
template <class Op>
HM_HD const typename Op::Acc* context_of(const Op& op, int64_t o, const typename Op::Acc* done) {
  if constexpr (requires { op.context(o, done); })
    return op.context(o, done);
  else
    return done;
}

// The partial of one lane: op.step over k = lane, lane + lanes, ... of the output's chunk
// (all of r unless the launch is split: launch output o is split o / outs of o % outs).
template <class Op>
HM_HD typename Op::Acc lane_partial(const Op& op, const ReduceGeometry& g, int pass, int64_t o, int lane,
                                    const typename Op::Acc* done) {
  typename Op::Acc acc = op.identity(pass);
  const int64_t s = o / g.outs, begin = s * g.chunk;
  const int64_t base = g.base(o - s * g.outs), end = begin + g.chunk < g.r ? begin + g.chunk : g.r;
  const typename Op::Acc* ctx = context_of(op, o - s * g.outs, done);
  for (int64_t k = begin + lane; k < end; k += g.lanes) acc = op.step(pass, acc, base + k * g.inner, k, ctx);
  return acc;
}

// Op: Acc (trivial), kPasses, identity(pass), step(pass, acc, offset, k, done),
// combine(pass, a, b), after_pass(pass, total) -> done[pass], finish(o, done).
template <class Op>
__global__ void __launch_bounds__(kReduceThreads) reduce_kernel(Op op, ReduceGeometry g) {
  using Acc = typename Op::Acc;
  __shared__ Acc sh[kReduceThreads];
  const int t = threadIdx.x, lane = g.lane_of(t), stride = g.lane_stride();
  const int64_t o = static_cast<int64_t>(blockIdx.x) * g.groups() + g.group_of(t);
  Acc done[Op::kPasses];
#pragma unroll
  for (int pass = 0; pass < Op::kPasses; ++pass) {
    sh[t] = o < g.m ? lane_partial(op, g, pass, o, lane, done) : op.identity(pass);
    __syncthreads();
    for (int s = g.lanes / 2; s > 0; s >>= 1) {
      if (lane < s) sh[t] = op.combine(pass, sh[t], sh[t + s * stride]);
      __syncthreads();
    }
    done[pass] = op.after_pass(pass, sh[t - lane * stride]);
    __syncthreads();  // every lane has read the total before the next pass overwrites sh
  }
  if (lane == 0 && o < g.m) op.finish(o, done);
}

// The host twin: the same partials and the same tree, one thread of one block at a time.
template <class Op>
void reduce_host(const Op& op, const ReduceGeometry& g, int64_t blocks) {
  using Acc = typename Op::Acc;
  std::vector<Acc> sh(kReduceThreads);
  std::vector<Acc> done(static_cast<size_t>(kReduceThreads) * Op::kPasses);
  const int stride = g.lane_stride();
  for (int64_t bx = 0; bx < blocks; ++bx) {
    for (int pass = 0; pass < Op::kPasses; ++pass) {
      for (int t = 0; t < kReduceThreads; ++t) {
        const int64_t o = bx * g.groups() + g.group_of(t);
        sh[t] = o < g.m ? lane_partial(op, g, pass, o, g.lane_of(t), &done[t * Op::kPasses]) : op.identity(pass);
      }
      for (int s = g.lanes / 2; s > 0; s >>= 1)
        for (int t = 0; t < kReduceThreads; ++t)
          if (g.lane_of(t) < s) sh[t] = op.combine(pass, sh[t], sh[t + s * stride]);
      for (int t = 0; t < kReduceThreads; ++t)
        done[t * Op::kPasses + pass] = op.after_pass(pass, sh[t - g.lane_of(t) * stride]);
    }
    for (int t = 0; t < kReduceThreads; ++t) {
      const int64_t o = bx * g.groups() + g.group_of(t);
      if (g.lane_of(t) == 0 && o < g.m) op.finish(o, &done[t * Op::kPasses]);
    }
  }
}

template <class Op>
void launch_reduce(Exec exec, int device, const Op& op, const ReduceGeometry& g) {
  static_assert(std::is_trivially_copyable_v<Op>, "kernel functors are copied to the device");
  const int64_t blocks = (g.m + g.groups() - 1) / g.groups();
  if (exec == Exec::Host) return reduce_host(op, g, blocks);
  DeviceGuard guard(device);
  reduce_kernel<<<static_cast<unsigned>(blocks), kReduceThreads, 0, stream(device)>>>(op, g);
  HM_CUDA_CHECK_LAUNCH();
}

// Split reductions (one-pass ops): launch one writes the partial Acc of every (split, output)
// to scratch (splits, m); launch two combines them in split order and finishes.
template <class Op>
struct SplitPartialR {
  using Acc = typename Op::Acc;
  static constexpr int kPasses = 1;
  Op op;
  Acc* partial;
  HM_HD Acc identity(int) const { return op.identity(0); }
  HM_HD const Acc* context(int64_t o, const Acc* d) const { return context_of(op, o, d); }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t k, const Acc* d) const { return op.step(0, a, off, k, d); }
  HM_HD Acc combine(int, Acc a, Acc b) const { return op.combine(0, a, b); }
  HM_HD Acc after_pass(int, Acc a) const { return a; }
  HM_HD void finish(int64_t o, const Acc* d) const { partial[o] = d[0]; }
};

template <class Op>
struct CombineR {
  using Acc = typename Op::Acc;
  static constexpr int kPasses = 1;
  Op op;
  const Acc* partial;
  HM_HD Acc identity(int) const { return op.identity(0); }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t, const Acc*) const { return op.combine(0, a, partial[off]); }
  HM_HD Acc combine(int, Acc a, Acc b) const { return op.combine(0, a, b); }
  HM_HD Acc after_pass(int, Acc a) const { return op.after_pass(0, a); }
  HM_HD void finish(int64_t o, const Acc* d) const { op.finish(o, d); }
};

// Pass P of a two-pass op as a one-pass op: pass 0 stores its result per output in `first`,
// pass 1 reads it back as the earlier result and finishes with both.
template <class Op, int P>
struct PassR {
  using Acc = typename Op::Acc;
  static constexpr int kPasses = 1;
  Op op;
  Acc* first;  // (m)
  HM_HD Acc identity(int) const { return op.identity(P); }
  HM_HD const Acc* context(int64_t o, const Acc*) const { return first + o; }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t k, const Acc* d) const { return op.step(P, a, off, k, d); }
  HM_HD Acc combine(int, Acc a, Acc b) const { return op.combine(P, a, b); }
  HM_HD Acc after_pass(int, Acc a) const { return op.after_pass(P, a); }
  HM_HD void finish(int64_t o, const Acc* d) const {
    if constexpr (P == 0) {
      first[o] = d[0];
    } else {
      const Acc both[2] = {first[o], d[0]};
      op.finish(o, both);
    }
  }
};

// Splits of r that fill the device (a fixed 64 blocks for the host twin, so the tests reach
// the split path) with at least 16 elements per thread; 1 = no split.
inline int64_t split_count(Exec exec, int device, const ReduceGeometry& g) {
  const int64_t blocks = (g.m + g.groups() - 1) / g.groups();
  const int64_t target = exec == Exec::Device ? int64_t{8} * sm_count(device) : 64;
  return std::max<int64_t>(1, std::min({(target + blocks - 1) / blocks, g.r / (int64_t{g.lanes} * 16), int64_t{1024}}));
}

inline Tensor scratch_for(int64_t count, size_t bytes_each, const Tensor& like) {  // 8-byte aligned
  return Tensor::empty({(count * static_cast<int64_t>(bytes_each) + 7) / 8}, DType::Float64, like.device());
}

// A one-pass op over g with r in `splits` chunks: partials (splits, m), then their combination.
template <class Op>
void launch_split(Exec exec, int device, const Op& op, const ReduceGeometry& g, int64_t splits, const Tensor& like) {
  using Acc = typename Op::Acc;
  ReduceGeometry g1 = g;
  g1.chunk = (g.r + splits - 1) / splits;
  splits = (g.r + g1.chunk - 1) / g1.chunk;
  g1.m = splits * g.m;
  Tensor scratch = scratch_for(g1.m, sizeof(Acc), like);
  Acc* partial = static_cast<Acc*>(scratch.raw_data());
  launch_reduce(exec, device, SplitPartialR<Op>{op, partial}, g1);
  // Element k (the split) of output o sits at partial[k * m + o].
  launch_reduce(exec, device, CombineR<Op>{op, partial}, reduce_geometry(1, splits, g.m));
}

// Runs op over g: one fused launch, or split launches when the outputs are too few.
template <class Op>
void run_reduce(Exec exec, int device, const Op& op, const ReduceGeometry& g, const Tensor& like) {
  if (g.m == 0) return;
  const int64_t splits = split_count(exec, device, g);
  if (splits == 1) return launch_reduce(exec, device, op, g);
  if constexpr (Op::kPasses == 1) {
    launch_split(exec, device, op, g, splits, like);
  } else {
    static_assert(Op::kPasses == 2);
    Tensor first = scratch_for(g.m, sizeof(typename Op::Acc), like);
    auto* p = static_cast<typename Op::Acc*>(first.raw_data());
    launch_split(exec, device, PassR<Op, 0>{op, p}, g, splits, like);
    launch_split(exec, device, PassR<Op, 1>{op, p}, g, splits, like);
  }
}

}  // namespace hm::cuda
