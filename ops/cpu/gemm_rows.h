// One row-major product through the gemm slot, for CPU kernels that work on raw pointers.
// Inside a parallel region it runs on the calling thread (ops/cpu/matmul.cpp), so a kernel can
// give each thread its own block of rows.
#pragma once
#include "harmonic/ops/matmul_kernels.h"

namespace hm {

// C (m, n) = op(A) op(B) + beta C (+ bias (n) on every row), natural leading dims: A is (m, k)
// or, transposed, (k, m); B is (k, n) or (n, k); C's rows ldc apart (0: n).
template <class T>
void gemm_rows(int64_t m, int64_t n, int64_t k, const T* a, bool ta, const T* b, bool tb, T* c, double beta,
               const T* bias = nullptr, int64_t ldc = 0) {
  GemmDesc g;
  g.dtype = dtype_of<T>();
  g.m = m, g.n = n, g.k = k;
  g.trans_a = ta, g.trans_b = tb;
  g.a = a, g.lda = ta ? m : k;
  g.b = b, g.ldb = tb ? k : n;
  g.c = c, g.ldc = ldc > 0 ? ldc : n;
  g.beta = beta;
  g.bias = bias;
  gemm_kernel(Device::cpu(), g);
}

}  // namespace hm
