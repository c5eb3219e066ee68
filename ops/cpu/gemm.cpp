// CPU GEMM on OpenBLAS. A single product lets OpenBLAS thread it (its thread count follows
// hm::get_num_threads()); a batch of small products runs one single-threaded GEMM per batch
// index in parallel instead, because OpenBLAS gains nothing from splitting small matrices.
#include <cblas.h>

#include <atomic>

#include "core/parallel.h"
#include "ops/linalg_kernels.h"

namespace hm {
namespace {

// openblas_set_num_threads takes a lock and touches the pool: only call it on a change.
void set_blas_threads(int n) {
  static std::atomic<int> current{-1};
  if (current.load(std::memory_order_relaxed) != n) {
    openblas_set_num_threads(n);
    current.store(n, std::memory_order_relaxed);
  }
}

inline void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, double alpha,
                      const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                      int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// One product C (m, n) at the given element addresses.
template <class T>
void gemm_one(const GemmDesc& d, const T* a, const T* b, T* c) {
  T beta = static_cast<T>(d.beta);
  if (d.bias) {  // C = bias rows, then accumulate the product onto them
    const T* bias = static_cast<const T*>(d.bias);
    for (int64_t i = 0; i < d.m; ++i) {
      T* row = c + i * d.ldc;
#pragma omp simd
      for (int64_t j = 0; j < d.n; ++j) row[j] = bias[j];
    }
    beta = 1;
  }
  if (d.k == 0) {  // empty inner dim: C = beta C (BLAS may read garbage as NaN otherwise)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) c[i * d.ldc + j] = beta == T(0) ? T(0) : beta * c[i * d.ldc + j];
    return;
  }
  blas_gemm(d.trans_a ? CblasTrans : CblasNoTrans, d.trans_b ? CblasTrans : CblasNoTrans, d.m, d.n, d.k,
            static_cast<T>(d.alpha), a, d.lda, b, d.ldb, beta, c, d.ldc);
}

template <class T>
void gemm_typed(const GemmDesc& d) {
  const T* a = static_cast<const T*>(d.a);
  const T* b = static_cast<const T*>(d.b);
  T* c = static_cast<T*>(d.c);
  const int64_t batches = numel_of(d.batch);
  if (batches == 0 || d.m == 0 || d.n == 0) return;
  const int threads = get_num_threads();
  if (batches == 1) {
    set_blas_threads(threads);
    return gemm_one(d, a, b, c);
  }
  const int64_t nd = static_cast<int64_t>(d.batch.size());
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      int64_t oa = 0, ob = 0, oc = 0, r = i;
      for (int64_t dim = nd - 1; dim >= 0; --dim) {
        int64_t idx = r % d.batch[dim];
        r /= d.batch[dim];
        oa += idx * d.batch_a[dim], ob += idx * d.batch_b[dim], oc += idx * d.batch_c[dim];
      }
      gemm_one(d, a + oa, b + ob, c + oc);
    }
  };
  // Products too small for OpenBLAS to split well go one per thread.
  const int64_t work = d.m * d.n * std::max<int64_t>(d.k, 1);
  if (threads > 1 && work < (int64_t{1} << 24)) {
    set_blas_threads(1);
    parallel_for(batches, work, run);
  } else {
    set_blas_threads(threads);
    run(0, batches);
  }
}

void cpu_gemm(const GemmDesc& d) {
  dispatch_float(d.dtype, "gemm", [&]<class T>() { gemm_typed<T>(d); });
}

[[maybe_unused]] const bool bound = (gemm_kernel.cpu = cpu_gemm, true);

}  // namespace
}  // namespace hm
