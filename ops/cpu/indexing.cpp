// CPU kernels of the gather/scatter family. Indices are validated in a separate pass before
// any element moves, so an exception never escapes an OpenMP region and a bad index never
// touches memory. Writes that could collide (scatter_add, index_add) are parallelised only
// over work items that own disjoint output elements.
#include <atomic>

#include "core/strided_loop.h"
#include "ops/indexing_kernels.h"

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
  // Iterate with dim innermost. out's stride along it is 0 here, so the loop never merges it
  // with another dim: every row is one whole fibre along dim, rows own disjoint elements of
  // out, and duplicates inside a fibre accumulate serially.
  Shape shape;
  Strides so, si, ss;
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d == dim) continue;
    shape.push_back(index.shape()[d]);
    so.push_back(out.strides()[d]), si.push_back(index.strides()[d]), ss.push_back(src.strides()[d]);
  }
  shape.push_back(index.shape()[dim]);
  so.push_back(0), si.push_back(index.strides()[dim]), ss.push_back(src.strides()[dim]);
  StridedLoop<3> loop(shape, {so, si, ss});
  dispatch_numeric(out.dtype(), fn, [&]<class T>() {
    T* po = static_cast<T*>(out.raw_data());
    const int64_t* pi = index.data<int64_t>();
    const T* ps = static_cast<const T*>(src.raw_data());
    loop.run([&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
      T* o = po + off[0];
      const int64_t* ir = pi + off[1];
      const T* sr = ps + off[2];
      for (int64_t i = 0; i < n; ++i) o[i * st[0] + ir[i * st[1]] * stride] += sr[i * st[2]];
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

[[maybe_unused]] const bool bound = [] {
  gather_kernel.cpu = cpu_gather;
  scatter_add_kernel.cpu = cpu_scatter_add;
  index_add_kernel.cpu = cpu_index_add;
  one_hot_kernel.cpu = cpu_one_hot;
  return true;
}();

}  // namespace
}  // namespace hm
