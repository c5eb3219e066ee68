// CPU embedding: a row gather forward; backward scatter-adds gradient rows into a zeroed
// (V, D) table. Each thread owns a contiguous range of vocabulary rows and scans all indices
// for its own, so repeated indices never race and each row sums in index order (the result
// does not depend on the thread count).
#include <cstring>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/embedding_kernels.h"

namespace hm {
namespace {

void cpu_embedding(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  const int64_t vocab = weight.size(0), dim = weight.size(1), n = indices.numel();
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t i = 0; i < n; ++i)  // validate first: no throwing inside the parallel region
    check(idx[i] >= 0 && idx[i] < vocab, "embedding", "index {} at position {} is out of range for {} rows", idx[i], i,
          vocab);
  dispatch_float(weight.dtype(), "embedding", [&]<class T>() {
    const T* w = weight.data<T>();
    T* o = out.data<T>();
    parallel_for(n, dim, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) std::memcpy(o + i * dim, w + idx[i] * dim, sizeof(T) * dim);
    });
  });
}

void cpu_embedding_backward(const Tensor& g, const Tensor& indices, int64_t padding_idx, const Tensor& dweight) {
  const int64_t vocab = dweight.size(0), dim = dweight.size(1), n = indices.numel();
  const int64_t* idx = indices.data<int64_t>();
  dispatch_float(dweight.dtype(), "embedding_backward", [&]<class T>() {
    const T* pg = g.data<T>();
    T* dw = dweight.data<T>();
    // Cost per vocabulary row: zeroing it plus its share of the scatter.
    parallel_for(vocab, dim + (n * dim) / std::max<int64_t>(vocab, 1), [&](int64_t v0, int64_t v1) {
      std::memset(static_cast<void*>(dw + v0 * dim), 0, sizeof(T) * (v1 - v0) * dim);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = idx[i];
        if (v < v0 || v >= v1 || v == padding_idx) continue;
        T* row = dw + v * dim;
        const T* gr = pg + i * dim;
#pragma omp simd
        for (int64_t j = 0; j < dim; ++j) row[j] += gr[j];
      }
    });
  });
}

[[maybe_unused]] const bool embedding_bound =
    (embedding_kernel.cpu = cpu_embedding, embedding_backward_kernel.cpu = cpu_embedding_backward, true);

}  // namespace
}  // namespace hm
