// CPU kernels of the gather/scatter family. Indices are validated in a separate pass before
// any element moves, so an exception never escapes an OpenMP region and a bad index never
// touches memory. Writes that could collide (scatter_add, index_add) are parallelised only
// over work items that own disjoint output elements.
#include <atomic>

#include "harmonic/core/strided_loop.h"
#include "harmonic/ops/indexing_kernels.h"

namespace hm {
namespace {

// Checks index (read with `strides` over `shape`) against [0, size); dims with stride 0
// repeat the same values and are scanned once.
void check_indices(std::string_view fn, const Tensor& index, const Shape& shape, const Strides& strides, int64_t size,
                   int64_t dim) {
  Shape scan = shape;
  for (size_t d = 0; d < scan.size(); ++d)
    if (strides[d] == 0) scan[d] = std::min<int64_t>(scan[d], 1);
  const int64_t* p = index.data<int64_t>();
  std::atomic<bool> bad{false};
  std::atomic<int64_t> bad_value{0};
  StridedLoop<1> loop(scan, {strides});
  loop.run([&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
    const int64_t* q = p + off[0];
    bool any = false;
#pragma omp simd reduction(|| : any)
    for (int64_t i = 0; i < n; ++i) any = any || static_cast<uint64_t>(q[i * st[0]]) >= static_cast<uint64_t>(size);
    if (!any) return;
    for (int64_t i = 0; i < n; ++i)
      if (q[i * st[0]] < 0 || q[i * st[0]] >= size) {
        bad_value.store(q[i * st[0]]);
        bad.store(true);
        return;
      }
  });
  if (bad.load())
    throw_error(fn, fmt::format("index {} is out of range for dim {} of size {} (valid range [0, {}))",
                                bad_value.load(), dim, size, size));
}

void cpu_gather(std::string_view fn, const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  const int64_t size = x.shape()[dim], stride = x.strides()[dim];
  check_indices(fn, index, out.shape(), index.strides(), size, dim);
  Strides xs = x.strides();
  xs[dim] = 0;  // the index supplies the coordinate along dim
  StridedLoop<3> loop(out.shape(), {out.strides(), xs, index.strides()});
  dispatch_all(x.dtype(), fn, [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const int64_t* pi = index.data<int64_t>();
    T* po = static_cast<T*>(out.raw_data());
    loop.run([&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
      T* o = po + off[0];
      const T* xr = px + off[1];
      const int64_t* ir = pi + off[2];
      if (st[2] == 0 && st[0] == 1 && st[1] == 1) {  // a whole row picked by one index (index_select, embedding)
        const T* s = xr + *ir * stride;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * st[0]] = xr[i * st[1] + ir[i * st[2]] * stride];
      }
    });
  });
}

void cpu_scatter_add(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t size = out.shape()[dim], stride = out.strides()[dim];
  check_indices(fn, index, index.shape(), index.strides(), size, dim);
  if (index.numel() == 0) return;
  // Loop nest (outer..., dim, last): a work item is one outer coordinate and a block of the
  // last dim, and walks dim serially. Items differ in a non-indexed coordinate, so they own
  // disjoint elements of out (race-free), duplicates accumulate in order, and the innermost
  // loop runs along the last dim, which is contiguous in the common case. When dim is the
  // last dim the "last" loop is a virtual dim of size 1.
  const int64_t nd = index.dim();
  const int64_t last = dim == nd - 1 ? -1 : nd - 1;
  std::vector<int64_t> outer;  // dims other than dim and last
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim && d != last) outer.push_back(d);
  const int64_t K = index.shape()[dim], J = last < 0 ? 1 : index.shape()[last];
  const int64_t so = last < 0 ? 0 : out.strides()[last], si = last < 0 ? 0 : index.strides()[last],
                ss = last < 0 ? 0 : src.strides()[last];
  const int64_t si_k = index.strides()[dim], ss_k = src.strides()[dim];
  int64_t P = 1;
  for (int64_t d : outer) P *= index.shape()[d];
  const int64_t block = std::min<int64_t>(J, 512), nblocks = (J + block - 1) / block;
  dispatch_numeric(out.dtype(), fn, [&]<class T>() {
    T* po = static_cast<T*>(out.raw_data());
    const int64_t* pi = index.data<int64_t>();
    const T* ps = static_cast<const T*>(src.raw_data());
    parallel_for(P * nblocks, K * block, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        int64_t rest = t / nblocks, oo = 0, oi = 0, os = 0;
        for (size_t q = outer.size(); q-- > 0;) {  // decompose the outer coordinate
          const int64_t d = outer[q], c = rest % index.shape()[d];
          rest /= index.shape()[d];
          oo += c * out.strides()[d], oi += c * index.strides()[d], os += c * src.strides()[d];
        }
        const int64_t j0 = (t % nblocks) * block, j1 = std::min(J, j0 + block);
        T* o = po + oo;
        for (int64_t k = 0; k < K; ++k) {
          const int64_t* ir = pi + oi + k * si_k;
          const T* sr = ps + os + k * ss_k;
          if (so == 1 && si == 1 && ss == 1) {
            for (int64_t j = j0; j < j1; ++j) o[ir[j] * stride + j] += sr[j];
          } else {
            for (int64_t j = j0; j < j1; ++j) o[ir[j * si] * stride + j * so] += sr[j * ss];
          }
        }
      }
    });
  });
}

void cpu_index_add(std::string_view fn, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t N = out.shape()[dim], K = index.numel();
  check_indices(fn, index, index.shape(), index.strides(), N, dim);
  int64_t A = 1, B = 1;  // out (A, N, B), src (A, K, B)
  for (int64_t d = 0; d < dim; ++d) A *= out.shape()[d];
  for (int64_t d = dim + 1; d < out.dim(); ++d) B *= out.shape()[d];
  if (A * B * K == 0) return;
  // Work items are (a, column block) pairs; each walks all K indices serially, so duplicate
  // indices accumulate in order and no two items share an output element.
  const int64_t block = std::min<int64_t>(B, 1024), nblocks = (B + block - 1) / block;
  dispatch_numeric(out.dtype(), fn, [&]<class T>() {
    T* po = out.data<T>();
    const T* ps = src.data<T>();
    const int64_t* idx = index.data<int64_t>();
    parallel_for(A * nblocks, K * block, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t a = t / nblocks, j0 = (t % nblocks) * block, j1 = std::min(B, j0 + block);
        for (int64_t k = 0; k < K; ++k) {
          T* o = po + (a * N + idx[k]) * B;
          const T* s = ps + (a * K + k) * B;
#pragma omp simd
          for (int64_t j = j0; j < j1; ++j) o[j] += s[j];
        }
      }
    });
  });
}

void cpu_one_hot(const Tensor& index, const Tensor& out) {
  const int64_t C = out.shape().back(), n = index.numel();
  const int64_t* pi = index.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    check(pi[i] >= 0 && pi[i] < C, "one_hot", "class value {} (at flat position {}) is out of range [0, {})", pi[i], i,
          C);
  dispatch_all(out.dtype(), "one_hot", [&]<class T>() {
    T* po = static_cast<T*>(out.raw_data());
    parallel_for(n, C, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        T* row = po + i * C;
        for (int64_t c = 0; c < C; ++c) row[c] = T(0);
        row[pi[i]] = T(1);
      }
    });
  });
}

[[maybe_unused]] const bool indexing_bound = (gather_kernel.cpu = cpu_gather, scatter_add_kernel.cpu = cpu_scatter_add,
                                     index_add_kernel.cpu = cpu_index_add, one_hot_kernel.cpu = cpu_one_hot, true);

}  // namespace
}  // namespace hm
