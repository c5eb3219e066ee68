// CUDA kernels of the reductions beyond sum (ops/reduce_kernels.h): max/min with first
// indices, var/std moments, logsumexp, p-norms, the elementwise reduction gradients and
// cumsum. The input is the contiguous (outer, r, inner) view of the op; element k of
// output o = (o / inner, o % inner) sits at x[base(o) + k * inner].
//
// One block-reduction template serves every reduction: a group of `lanes` threads (a power
// of two) per output strides along k, then the groups combine their partials in a fixed
// tree in shared memory, in one or two passes (moments and logsumexp need the mean / max
// before their second pass). Deterministic: no atomics, the same order on every run.
//   rows    (inner == 1): the lanes of a group are adjacent threads (coalesced along k);
//   columns (inner > 1):  adjacent threads are adjacent outputs (coalesced along inner).
// Few outputs over a long r (a full reduction, per-channel statistics) would leave most of
// the device idle, so r is then split over the grid: partials per (split, output) go to a
// scratch buffer and a second launch combines them in split order (two-pass ops run each
// pass that way, the first pass's result per output kept in a buffer).
// The host twin runs the same per-thread partials and the same tree, thread by thread.
#include <cmath>
#include <limits>

#include "cuda/emulation.h"
#include "cuda/launch.cuh"
#include "cuda/math.cuh"
#include "ops/reduce_functors.h"
#include "ops/reduce_kernels.h"

namespace hm::cuda {
namespace {

constexpr int kBlock = 256;  // threads per block of every kernel here

struct Geometry {
  int64_t m = 0, r = 0, inner = 1;  // outputs (outer * inner), reduced length, inner size
  int64_t outs = 0, chunk = 0;      // split launches: m = splits * outs, split s covers chunk s of k
  int lanes = 1;                    // threads per output: a power of two <= kBlock
  bool rows = true;                 // lanes adjacent (rows) or kBlock / lanes apart (columns)
  HM_HD int groups() const { return kBlock / lanes; }
  HM_HD int lane_of(int t) const { return rows ? t % lanes : t / groups(); }
  HM_HD int group_of(int t) const { return rows ? t / lanes : t % groups(); }
  HM_HD int lane_stride() const { return rows ? 1 : groups(); }  // shared slot of lane l + 1 minus lane l
  HM_HD int64_t base(int64_t o) const { return (o / inner) * r * inner + o % inner; }
};

int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

Geometry geometry(int64_t outer, int64_t r, int64_t inner) {
  Geometry g{outer * inner, r, inner, outer * inner, r};
  g.rows = inner == 1;
  // Rows: a warp per output, a whole block once r is long. Columns: 8 threads along k for
  // 32 adjacent outputs, more along k when there are few outputs.
  const int64_t want = g.rows ? (r >= 4096 ? kBlock : 32) : std::max<int64_t>(8, kBlock / pow2_at_least(g.m));
  g.lanes = static_cast<int>(std::min({pow2_at_least(std::max<int64_t>(r, 1)), want, int64_t{kBlock}}));
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
HM_HD typename Op::Acc lane_partial(const Op& op, const Geometry& g, int pass, int64_t o, int lane,
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
__global__ void __launch_bounds__(kBlock) reduce_kernel(Op op, Geometry g) {
  using Acc = typename Op::Acc;
  __shared__ Acc sh[kBlock];
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
void reduce_host(const Op& op, const Geometry& g, int64_t blocks) {
  using Acc = typename Op::Acc;
  std::vector<Acc> sh(kBlock);
  std::vector<Acc> done(static_cast<size_t>(kBlock) * Op::kPasses);
  const int stride = g.lane_stride();
  for (int64_t bx = 0; bx < blocks; ++bx) {
    for (int pass = 0; pass < Op::kPasses; ++pass) {
      for (int t = 0; t < kBlock; ++t) {
        const int64_t o = bx * g.groups() + g.group_of(t);
        sh[t] = o < g.m ? lane_partial(op, g, pass, o, g.lane_of(t), &done[t * Op::kPasses]) : op.identity(pass);
      }
      for (int s = g.lanes / 2; s > 0; s >>= 1)
        for (int t = 0; t < kBlock; ++t)
          if (g.lane_of(t) < s) sh[t] = op.combine(pass, sh[t], sh[t + s * stride]);
      for (int t = 0; t < kBlock; ++t)
        done[t * Op::kPasses + pass] = op.after_pass(pass, sh[t - g.lane_of(t) * stride]);
    }
    for (int t = 0; t < kBlock; ++t) {
      const int64_t o = bx * g.groups() + g.group_of(t);
      if (g.lane_of(t) == 0 && o < g.m) op.finish(o, &done[t * Op::kPasses]);
    }
  }
}

template <class Op>
void launch_reduce(Exec exec, int device, const Op& op, const Geometry& g) {
  static_assert(std::is_trivially_copyable_v<Op>, "kernel functors are copied to the device");
  const int64_t blocks = (g.m + g.groups() - 1) / g.groups();
  if (exec == Exec::Host) return reduce_host(op, g, blocks);
  DeviceGuard guard(device);
  reduce_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream(device)>>>(op, g);
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
int64_t split_count(Exec exec, int device, const Geometry& g) {
  const int64_t blocks = (g.m + g.groups() - 1) / g.groups();
  const int64_t target = exec == Exec::Device ? int64_t{8} * sm_count(device) : 64;
  return std::max<int64_t>(1, std::min({(target + blocks - 1) / blocks, g.r / (int64_t{g.lanes} * 16), int64_t{1024}}));
}

Tensor scratch_for(int64_t count, size_t bytes_each, const Tensor& like) {  // 8-byte aligned
  return Tensor::empty({(count * static_cast<int64_t>(bytes_each) + 7) / 8}, DType::Float64, like.device());
}

// A one-pass op over g with r in `splits` chunks: partials (splits, m), then their combination.
template <class Op>
void launch_split(Exec exec, int device, const Op& op, const Geometry& g, int64_t splits, const Tensor& like) {
  using Acc = typename Op::Acc;
  Geometry g1 = g;
  g1.chunk = (g.r + splits - 1) / splits;
  splits = (g.r + g1.chunk - 1) / g1.chunk;
  g1.m = splits * g.m;
  Tensor scratch = scratch_for(g1.m, sizeof(Acc), like);
  Acc* partial = static_cast<Acc*>(scratch.raw_data());
  launch_reduce(exec, device, SplitPartialR<Op>{op, partial}, g1);
  // Element k (the split) of output o sits at partial[k * m + o].
  launch_reduce(exec, device, CombineR<Op>{op, partial}, geometry(1, splits, g.m));
}

// Runs op over g: one fused launch, or split launches when the outputs are too few.
template <class Op>
void run_reduce(Exec exec, int device, const Op& op, const Geometry& g, const Tensor& like) {
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

// -- the reductions ------------------------------------------------------------------------------

// max/min and the first k reaching it (NaN wins, ties keep the earliest: fn::extremum_beats).
template <bool IsMax, class T>
struct ExtremaR {
  struct Acc {
    T v;
    int64_t k;  // -1: no element seen
  };
  static constexpr int kPasses = 1;
  const T* x;
  T* values;
  int64_t* indices;  // null when not wanted
  HM_HD Acc identity(int) const { return {T(0), -1}; }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t k, const Acc*) const {
    const T v = x[off];
    return a.k < 0 || fn::extremum_beats<IsMax>(v, a.v) ? Acc{v, k} : a;
  }
  HM_HD Acc combine(int, Acc a, Acc b) const {
    if (b.k < 0) return a;
    if (a.k < 0 || fn::extremum_beats<IsMax>(b.v, a.v)) return b;
    if (fn::extremum_beats<IsMax>(a.v, b.v)) return a;
    return b.k < a.k ? b : a;  // equal (or both NaN): the first index
  }
  HM_HD Acc after_pass(int, Acc a) const { return a; }
  HM_HD void finish(int64_t o, const Acc* d) const {
    values[o] = d[0].v;
    if (indices) indices[o] = d[0].k;
  }
};

// Two passes in double like the CPU kernel: the mean, then the sum of squared deviations.
template <class T>
struct MomentsR {
  using Acc = double;
  static constexpr int kPasses = 2;
  const T* x;
  T* mean;
  T* out;
  double n, denom;
  bool take_sqrt;
  HM_HD Acc identity(int) const { return 0; }
  HM_HD Acc step(int pass, Acc a, int64_t off, int64_t, const Acc* done) const {
    const double v = x[off];
    return pass == 0 ? a + v : a + (v - done[0]) * (v - done[0]);
  }
  HM_HD Acc combine(int, Acc a, Acc b) const { return a + b; }
  HM_HD Acc after_pass(int pass, Acc total) const { return pass == 0 ? total / n : total; }  // done[0] = mean
  HM_HD void finish(int64_t o, const Acc* d) const {
    mean[o] = static_cast<T>(d[0]);
    out[o] = static_cast<T>(take_sqrt ? CudaMath::sqrt(d[1] / denom) : d[1] / denom);
  }
};

// Pass one: the max (NaN skipped by the comparison, as on the CPU), turned into the shift
// (0 when infinite); pass two: sum of exp(x - shift).
template <class T>
struct LogSumExpR {
  using Acc = T;
  static constexpr int kPasses = 2;
  const T* x;
  T* out;
  HM_HD Acc identity(int pass) const { return pass == 0 ? -std::numeric_limits<T>::infinity() : T(0); }
  HM_HD Acc step(int pass, Acc a, int64_t off, int64_t, const Acc* done) const {
    const T v = x[off];
    return pass == 0 ? (v > a ? v : a) : a + CudaMath::exp(v - done[0]);
  }
  HM_HD Acc combine(int pass, Acc a, Acc b) const { return pass == 0 ? (b > a ? b : a) : a + b; }
  HM_HD Acc after_pass(int pass, Acc total) const {
    const T inf = std::numeric_limits<T>::infinity();
    return pass == 0 && (total == inf || total == -inf) ? T(0) : total;
  }
  HM_HD void finish(int64_t o, const Acc* d) const { out[o] = d[0] + CudaMath::log(d[1]); }
};

enum class NormKind : int { Two, One, Zero, P, Max, Min };

template <class T>
struct NormR {
  using Acc = T;
  static constexpr int kPasses = 1;
  const T* x;
  T* out;
  NormKind kind;
  T p;
  HM_HD static T nan() { return std::numeric_limits<T>::quiet_NaN(); }
  HM_HD Acc identity(int) const { return kind == NormKind::Min ? std::numeric_limits<T>::infinity() : T(0); }
  // max / min of |x| with NaN propagating.
  HM_HD Acc extreme(Acc a, Acc b) const {
    if (a != a || b != b) return nan();
    return kind == NormKind::Max ? (a > b ? a : b) : (a < b ? a : b);
  }
  HM_HD Acc step(int, Acc a, int64_t off, int64_t, const Acc*) const {
    const T v = x[off];
    switch (kind) {
      case NormKind::Two:
        return a + v * v;
      case NormKind::One:
        return a + std::fabs(v);
      case NormKind::Zero:
        return a + (v != T(0) ? T(1) : T(0));
      case NormKind::P:
        return a + CudaMath::exp(p * CudaMath::log(std::fabs(v)));  // |v|^p as on the CPU
      default:
        return extreme(std::fabs(v), a);
    }
  }
  HM_HD Acc combine(int, Acc a, Acc b) const {
    return kind == NormKind::Max || kind == NormKind::Min ? extreme(a, b) : a + b;
  }
  HM_HD Acc after_pass(int, Acc a) const { return a; }
  HM_HD void finish(int64_t o, const Acc* d) const {
    out[o] = kind == NormKind::Two ? CudaMath::sqrt(d[0]) : kind == NormKind::P ? CudaMath::pow(d[0], T(1) / p) : d[0];
  }
};

struct Dims3 {
  int64_t outer, r, inner;
};

Dims3 dims3(const Tensor& x, std::string_view fn) {
  check(x.dim() == 3 && x.is_contiguous(), fn, "expected a contiguous (outer, r, inner) input, got {}", x.desc());
  return {x.shape()[0], x.shape()[1], x.shape()[2]};
}

void extrema(Exec exec, ExtremaOp op, const Tensor& x, const Tensor& values, const Tensor& indices) {
  const int device = kernel_device(exec, "reduce_extrema", {&x, &values});
  const Dims3 d = dims3(x, "reduce_extrema");
  check(d.r >= 1, "reduce_extrema", "empty reduction");
  if (indices.defined()) kernel_device(exec, "reduce_extrema", {&x, &indices});
  int64_t* pi = indices.defined() ? static_cast<int64_t*>(indices.raw_data()) : nullptr;
  const Geometry g = geometry(d.outer, d.r, d.inner);
  dispatch_numeric(x.dtype(), "reduce_extrema", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* pv = static_cast<T*>(values.raw_data());
    if (op == ExtremaOp::Max)
      run_reduce(exec, device, ExtremaR<true, T>{px, pv, pi}, g, x);
    else
      run_reduce(exec, device, ExtremaR<false, T>{px, pv, pi}, g, x);
  });
}

void moments(Exec exec, const Tensor& x, int64_t correction, bool take_sqrt, const Tensor& mean, const Tensor& out) {
  const int device = kernel_device(exec, "moments", {&x, &mean, &out});
  const Dims3 d = dims3(x, "moments");
  // r == 0 gives 0/0 = NaN like PyTorch; r <= correction divides by 0.
  const double n = static_cast<double>(d.r), denom = static_cast<double>(std::max<int64_t>(d.r - correction, 0));
  dispatch_float(x.dtype(), "moments", [&]<class T>() {
    MomentsR<T> op{static_cast<const T*>(x.raw_data()),
                   static_cast<T*>(mean.raw_data()),
                   static_cast<T*>(out.raw_data()),
                   n,
                   denom,
                   take_sqrt};
    run_reduce(exec, device, op, geometry(d.outer, d.r, d.inner), x);
  });
}

void logsumexp(Exec exec, const Tensor& x, const Tensor& out) {
  const int device = kernel_device(exec, "logsumexp", {&x, &out});
  const Dims3 d = dims3(x, "logsumexp");
  dispatch_float(x.dtype(), "logsumexp", [&]<class T>() {
    LogSumExpR<T> op{static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data())};
    run_reduce(exec, device, op, geometry(d.outer, d.r, d.inner), x);
  });
}

void norm(Exec exec, const Tensor& x, double p, const Tensor& out) {
  const int device = kernel_device(exec, "norm", {&x, &out});
  const Dims3 d = dims3(x, "norm");
  const NormKind kind = p == 2           ? NormKind::Two
                        : p == 1         ? NormKind::One
                        : p == 0         ? NormKind::Zero
                        : !std::isinf(p) ? NormKind::P
                        : p > 0          ? NormKind::Max
                                         : NormKind::Min;
  dispatch_float(x.dtype(), "norm", [&]<class T>() {
    NormR<T> op{static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), kind, static_cast<T>(p)};
    run_reduce(exec, device, op, geometry(d.outer, d.r, d.inner), x);
  });
}

// -- elementwise reduction gradients --------------------------------------------------------------

template <class T, class F>
struct ReduceGradK {
  F f;
  const T* x;
  const T* r;
  const T* g;
  T* out;
  OffsetCalc<4> calc;  // operands (out, x, r, g); r and g broadcast over the reduced dims
  HM_HD void operator()(int64_t i) const {
    const auto o = calc.get(i);
    out[o.v[0]] = f(x[o.v[1]], r[o.v[2]], g[o.v[3]]);
  }
};

void reduce_grad(Exec exec, ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g,
                 const Tensor& out) {
  const int device = kernel_device(exec, "reduce_grad", {&x, &r, &g, &out});
  check(r.shape() == x.shape() && g.shape() == x.shape() && out.shape() == x.shape(), "reduce_grad",
        "operands {}, {}, {} not expanded to {}", r.desc(), g.desc(), out.desc(), x.desc());
  const OffsetCalc<4> calc =
      make_offset_calc<4>(x.shape(), {&out.strides(), &x.strides(), &r.strides(), &g.strides()}, "reduce_grad");
  dispatch_float(x.dtype(), "reduce_grad", [&]<class T>() {
    auto run = [&](auto f) {
      ReduceGradK<T, decltype(f)> k{f,
                                    static_cast<const T*>(x.raw_data()),
                                    static_cast<const T*>(r.raw_data()),
                                    static_cast<const T*>(g.raw_data()),
                                    static_cast<T*>(out.raw_data()),
                                    calc};
      for_each_index(exec, device, x.numel(), k);
    };
    switch (op) {
      case ReduceGradOp::LogSumExp:
        return run(fn::GradLogSumExp<CudaMath>{});
      case ReduceGradOp::Norm:
        if (p == 2) return run(fn::GradNorm2{});
        if (p == 1) return run(fn::GradNorm1{});
        return run(fn::GradNormP<CudaMath>{p});
      case ReduceGradOp::EqMask:
        return run(fn::EqMask{});
      case ReduceGradOp::AbsEqMask:
        return run(fn::AbsEqMask{});
      case ReduceGradOp::AbsEqSign:
        return run(fn::AbsEqSign{});
    }
  });
}

// -- cumsum --------------------------------------------------------------------------------------

// One thread per (o, i) line scanning serially: coalesced when inner > 1, and the right
// shape for many short rows.
template <class T>
struct ScanLineK {
  const T* x;
  T* out;
  int64_t n, inner;
  bool reverse;
  HM_HD void operator()(int64_t line) const {
    const int64_t base = (line / inner) * n * inner + line % inner;
    T acc = T(0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t at = base + (reverse ? n - 1 - k : k) * inner;
      acc += x[at];
      out[at] = acc;
    }
  }
};

// Long rows (inner == 1): a block per row walks tiles of kBlock elements, each an inclusive
// Hillis-Steele scan in shared memory plus the carry of the tiles before it.
template <class T>
struct ScanRows {
  const T* x;
  T* out;
  int64_t n;
  bool reverse;
  HM_HD int64_t at(int64_t row, int64_t k) const { return row * n + (reverse ? n - 1 - k : k); }
};

template <class T>
__global__ void __launch_bounds__(kBlock) scan_rows_kernel(ScanRows<T> s) {
  __shared__ T sh[2][kBlock];
  const int t = threadIdx.x;
  const int64_t row = blockIdx.x;
  T carry = T(0);
  for (int64_t t0 = 0; t0 < s.n; t0 += kBlock) {
    const int64_t k = t0 + t;
    int cur = 0;
    sh[0][t] = k < s.n ? s.x[s.at(row, k)] : T(0);
    __syncthreads();
    for (int off = 1; off < kBlock; off <<= 1) {
      sh[cur ^ 1][t] = t >= off ? sh[cur][t - off] + sh[cur][t] : sh[cur][t];
      cur ^= 1;
      __syncthreads();
    }
    if (k < s.n) s.out[s.at(row, k)] = carry + sh[cur][t];
    carry += sh[cur][kBlock - 1];
    __syncthreads();  // everyone has read the tile total before the next tile overwrites sh
  }
}

template <class T>
void scan_rows_host(const ScanRows<T>& s, int64_t rows) {
  std::vector<T> a(kBlock), b(kBlock);
  for (int64_t row = 0; row < rows; ++row) {
    T carry = T(0);
    for (int64_t t0 = 0; t0 < s.n; t0 += kBlock) {
      for (int t = 0; t < kBlock; ++t) a[t] = t0 + t < s.n ? s.x[s.at(row, t0 + t)] : T(0);
      for (int off = 1; off < kBlock; off <<= 1) {
        for (int t = 0; t < kBlock; ++t) b[t] = t >= off ? a[t - off] + a[t] : a[t];
        std::swap(a, b);
      }
      for (int t = 0; t < kBlock && t0 + t < s.n; ++t) s.out[s.at(row, t0 + t)] = carry + a[t];
      carry += a[kBlock - 1];
    }
  }
}

void cumsum(Exec exec, const Tensor& x, bool reverse, const Tensor& out) {
  const int device = kernel_device(exec, "cumsum", {&x, &out});
  const Dims3 d = dims3(x, "cumsum");
  check(out.shape() == x.shape() && out.is_contiguous() && out.dtype() == x.dtype(), "cumsum", "output {} for input {}",
        out.desc(), x.desc());
  if (x.numel() == 0) return;
  dispatch_numeric(x.dtype(), "cumsum", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    if (d.inner > 1 || d.r < kBlock) {
      for_each_index(exec, device, d.outer * d.inner, ScanLineK<T>{px, po, d.r, d.inner, reverse});
      return;
    }
    const ScanRows<T> s{px, po, d.r, reverse};
    if (exec == Exec::Host) return scan_rows_host(s, d.outer);
    DeviceGuard guard(device);
    scan_rows_kernel<T><<<static_cast<unsigned>(d.outer), kBlock, 0, stream(device)>>>(s);
    HM_CUDA_CHECK_LAUNCH();
  });
}

// -- slot bindings: the device kernels and their host twins ------------------------------------

template <Exec E>
void extrema_on(ExtremaOp op, const Tensor& x, const Tensor& v, const Tensor& i) {
  extrema(E, op, x, v, i);
}
template <Exec E>
void moments_on(const Tensor& x, int64_t c, bool s, const Tensor& m, const Tensor& o) {
  moments(E, x, c, s, m, o);
}
template <Exec E>
void logsumexp_on(const Tensor& x, const Tensor& o) {
  logsumexp(E, x, o);
}
template <Exec E>
void norm_on(const Tensor& x, double p, const Tensor& o) {
  norm(E, x, p, o);
}
template <Exec E>
void reduce_grad_on(ReduceGradOp op, double p, const Tensor& x, const Tensor& r, const Tensor& g, const Tensor& o) {
  reduce_grad(E, op, p, x, r, g, o);
}
template <Exec E>
void cumsum_on(const Tensor& x, bool reverse, const Tensor& o) {
  cumsum(E, x, reverse, o);
}

[[maybe_unused]] const bool bound =
    bind_cuda(extrema_kernel, extrema_on<Exec::Device>, extrema_on<Exec::Host>) &&
    bind_cuda(moments_kernel, moments_on<Exec::Device>, moments_on<Exec::Host>) &&
    bind_cuda(logsumexp_kernel, logsumexp_on<Exec::Device>, logsumexp_on<Exec::Host>) &&
    bind_cuda(norm_kernel, norm_on<Exec::Device>, norm_on<Exec::Host>) &&
    bind_cuda(reduce_grad_kernel, reduce_grad_on<Exec::Device>, reduce_grad_on<Exec::Host>) &&
    bind_cuda(cumsum_kernel, cumsum_on<Exec::Device>, cumsum_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
