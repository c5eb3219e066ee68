// Dense float64 Cholesky for Gaussian-process sampling (data/kernel_synth): blocked,
// right-looking, with the panel solve and trailing update on BLAS level 3 (dtrsm, dsyrk).
#pragma once
#include <cstdint>
#include <vector>

namespace hm::data {

// a: row-major (n, n) symmetric; on success its lower triangle holds L with A = L L^T and the
// strict upper triangle is zeroed. Returns false (a partly overwritten) when a pivot is not
// positive: the matrix is not numerically positive definite.
bool cholesky_lower(std::vector<double>& a, int64_t n);

// L (n, n) lower -> L z for z (n): a sample of N(0, L L^T) when z is standard normal.
std::vector<double> lower_times(const std::vector<double>& l, int64_t n, std::vector<double> z);

}  // namespace hm::data
