// CUDA kernel of cumsum (ops/cumsum_kernels.h): scans the contiguous (outer, n, inner) view,
// one thread per line or a block per long row.
#include "harmonic/cuda/device/block_reduce.cuh"
#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/math.cuh"
#include "harmonic/ops/cumsum_kernels.h"
#include "harmonic/ops/reduce_functors.h"

namespace hm::cuda {
namespace {

constexpr int kScanThreads = 256;  // threads per block of the row scan

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

// Long rows (inner == 1): a block per row walks tiles of kScanThreads elements, each an inclusive
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
__global__ void __launch_bounds__(kScanThreads) scan_rows_kernel(ScanRows<T> s) {
  __shared__ T sh[2][kScanThreads];
  const int t = threadIdx.x;
  const int64_t row = blockIdx.x;
  T carry = T(0);
  for (int64_t t0 = 0; t0 < s.n; t0 += kScanThreads) {
    const int64_t k = t0 + t;
    int cur = 0;
    sh[0][t] = k < s.n ? s.x[s.at(row, k)] : T(0);
    __syncthreads();
    for (int off = 1; off < kScanThreads; off <<= 1) {
      sh[cur ^ 1][t] = t >= off ? sh[cur][t - off] + sh[cur][t] : sh[cur][t];
      cur ^= 1;
      __syncthreads();
    }
    if (k < s.n) s.out[s.at(row, k)] = carry + sh[cur][t];
    carry += sh[cur][kScanThreads - 1];
    __syncthreads();  // everyone has read the tile total before the next tile overwrites sh
  }
}

template <class T>
void scan_rows_host(const ScanRows<T>& s, int64_t rows) {
  std::vector<T> a(kScanThreads), b(kScanThreads);
  for (int64_t row = 0; row < rows; ++row) {
    T carry = T(0);
    for (int64_t t0 = 0; t0 < s.n; t0 += kScanThreads) {
      for (int t = 0; t < kScanThreads; ++t) a[t] = t0 + t < s.n ? s.x[s.at(row, t0 + t)] : T(0);
      for (int off = 1; off < kScanThreads; off <<= 1) {
        for (int t = 0; t < kScanThreads; ++t) b[t] = t >= off ? a[t - off] + a[t] : a[t];
        std::swap(a, b);
      }
      for (int t = 0; t < kScanThreads && t0 + t < s.n; ++t) s.out[s.at(row, t0 + t)] = carry + a[t];
      carry += a[kScanThreads - 1];
    }
  }
}

void cumsum(Exec exec, const Tensor& x, bool reverse, const Tensor& out) {
  const int device = kernel_device(exec, "cumsum", {&x, &out});
  const ReduceDims d = reduce_dims(x, "cumsum");
  check(out.shape() == x.shape() && out.is_contiguous() && out.dtype() == x.dtype(), "cumsum", "output {} for input {}",
        out.desc(), x.desc());
  if (x.numel() == 0) return;
  dispatch_numeric(x.dtype(), "cumsum", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    if (d.inner > 1 || d.r < kScanThreads) {
      for_each_index(exec, device, d.outer * d.inner, ScanLineK<T>{px, po, d.r, d.inner, reverse});
      return;
    }
    const ScanRows<T> s{px, po, d.r, reverse};
    if (exec == Exec::Host) return scan_rows_host(s, d.outer);
    DeviceGuard guard(device);
    scan_rows_kernel<T><<<static_cast<unsigned>(d.outer), kScanThreads, 0, stream(device)>>>(s);
    HM_CUDA_CHECK_LAUNCH();
  });
}

template <Exec E>
void cumsum_on(const Tensor& x, bool reverse, const Tensor& o) {
  cumsum(E, x, reverse, o);
}

[[maybe_unused]] const bool bound =
    bind_cuda(cumsum_kernel, cumsum_on<Exec::Device>, cumsum_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
