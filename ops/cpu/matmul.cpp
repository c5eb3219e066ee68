// CPU GEMM on OpenBLAS, threaded by our own OpenMP pool: OpenBLAS always runs single-threaded
// and we split a big product into row (or column) blocks, one BLAS call per thread, or run
// a batch of small products one per thread. Measured on 2 cores against letting OpenBLAS
// thread (openblas_set_num_threads(hm::get_num_threads())): equal or faster on a lone GEMM,
// and ~1.7x faster on linear -> layer_norm -> softmax, because two thread pools (OpenBLAS's
// spinning pthreads and OpenMP's) no longer compete for the cores between ops.
#include <cblas.h>

#include "harmonic/core/parallel.h"
#include "harmonic/ops/matmul_kernels.h"

namespace hm {
namespace {

// Once, before the first call: keep OpenBLAS from starting threads of its own (we thread with
// OpenMP, see above).
void setup_blas() {
  static const bool once = (openblas_set_num_threads(1), true);
  (void)once;
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

// Splits one product over threads by rows of C (or columns when C is short and wide), each
// part a single-threaded BLAS call: one OpenMP pool does all the threading.
template <class T>
void gemm_split(const GemmDesc& d, const T* a, const T* b, T* c, int threads) {
  const bool by_rows = d.m >= d.n;
  const int64_t extent = by_rows ? d.m : d.n;
  const int64_t parts = std::min<int64_t>(threads, (extent + 15) / 16);
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int64_t p = 0; p < parts; ++p) {
    // Boundaries on multiples of 16 keep the BLAS micro-kernel tiles whole.
    const int64_t lo = std::min(extent, (extent * p / parts + 15) / 16 * 16);
    const int64_t hi = p + 1 == parts ? extent : std::min(extent, (extent * (p + 1) / parts + 15) / 16 * 16);
    if (lo >= hi) continue;
    GemmDesc part = d;
    if (by_rows) {
      part.m = hi - lo;
      gemm_one(part, a + (d.trans_a ? lo : lo * d.lda), b, c + lo * d.ldc);
    } else {
      part.n = hi - lo;
      if (d.bias) part.bias = static_cast<const T*>(d.bias) + lo;
      gemm_one(part, a, b + (d.trans_b ? lo * d.ldb : lo), c + lo);
    }
  }
}

// Batches of products below this size run one product per thread.
constexpr int64_t kBatchParallelWork = int64_t{1} << 24;

template <class T>
void gemm_typed(const GemmDesc& d) {
  setup_blas();
  const T* a = static_cast<const T*>(d.a);
  const T* b = static_cast<const T*>(d.b);
  T* c = static_cast<T*>(d.c);
  const int64_t batches = numel_of(d.batch);
  if (batches == 0 || d.m == 0 || d.n == 0) return;
  const int threads = omp_in_parallel() ? 1 : get_num_threads();
  const int64_t work = d.m * d.n * std::max<int64_t>(d.k, 1);
  auto one = [&](const T* pa, const T* pb, T* pc) {
    if (threads > 1 && work >= gemm_split_work()) gemm_split(d, pa, pb, pc, threads);
    else gemm_one(d, pa, pb, pc);
  };
  if (batches == 1) return one(a, b, c);
  const int64_t nd = static_cast<int64_t>(d.batch.size());
  auto run = [&](int64_t begin, int64_t end, bool split) {
    for (int64_t i = begin; i < end; ++i) {
      int64_t oa = 0, ob = 0, oc = 0, r = i;
      for (int64_t dim = nd - 1; dim >= 0; --dim) {
        int64_t idx = r % d.batch[dim];
        r /= d.batch[dim];
        oa += idx * d.batch_a[dim], ob += idx * d.batch_b[dim], oc += idx * d.batch_c[dim];
      }
      if (split) one(a + oa, b + ob, c + oc);
      else gemm_one(d, a + oa, b + ob, c + oc);
    }
  };
  if (threads > 1 && batches >= threads && work < kBatchParallelWork)
    parallel_for(batches, work, [&](int64_t begin, int64_t end) { run(begin, end, false); });
  else
    run(0, batches, true);
}

void cpu_gemm(const GemmDesc& d) {
  dispatch_float(d.dtype, "gemm", [&]<class T>() { gemm_typed<T>(d); });
}

[[maybe_unused]] const bool matmul_bound = (gemm_kernel.cpu = cpu_gemm, true);

}  // namespace
}  // namespace hm
