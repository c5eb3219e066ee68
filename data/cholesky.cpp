#include "harmonic/data/cholesky.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "harmonic/core/error.h"

namespace hm::data {
namespace {

// Unblocked Cholesky of the kb x kb diagonal block at a + k (n + 1), leading dimension n.
bool factor_block(double* a, int64_t kb, int64_t n) {
  for (int64_t j = 0; j < kb; ++j) {
    double d = a[j * n + j];
    for (int64_t p = 0; p < j; ++p) d -= a[j * n + p] * a[j * n + p];
    if (!(d > 0) || !std::isfinite(d)) return false;
    const double root = std::sqrt(d);
    a[j * n + j] = root;
    for (int64_t i = j + 1; i < kb; ++i) {
      double s = a[i * n + j];
      for (int64_t p = 0; p < j; ++p) s -= a[i * n + p] * a[j * n + p];
      a[i * n + j] = s / root;
    }
  }
  return true;
}

}  // namespace

bool cholesky_lower(std::vector<double>& a, int64_t n) {
  check(n >= 1 && static_cast<int64_t>(a.size()) == n * n, "cholesky_lower", "need an (n, n) matrix, got {} values for n = {}",
        a.size(), n);
  constexpr int64_t kBlock = 64;
  double* m = a.data();
  for (int64_t k = 0; k < n; k += kBlock) {
    const int64_t kb = std::min(kBlock, n - k), rest = n - k - kb;
    double* diag = m + k * n + k;
    if (!factor_block(diag, kb, n)) return false;
    if (rest == 0) break;
    double* panel = m + (k + kb) * n + k;  // (rest, kb): P = A_panel L_kk^-T
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, static_cast<int>(rest),
                static_cast<int>(kb), 1.0, diag, static_cast<int>(n), panel, static_cast<int>(n));
    double* trailing = m + (k + kb) * n + (k + kb);  // lower triangle of A_tt -= P P^T
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, static_cast<int>(rest), static_cast<int>(kb), -1.0, panel,
                static_cast<int>(n), 1.0, trailing, static_cast<int>(n));
  }
  for (int64_t i = 0; i < n; ++i) std::fill(m + i * n + i + 1, m + (i + 1) * n, 0.0);
  return true;
}

std::vector<double> lower_times(const std::vector<double>& l, int64_t n, std::vector<double> z) {
  check(static_cast<int64_t>(l.size()) == n * n && static_cast<int64_t>(z.size()) == n, "lower_times",
        "need L (n, n) and z (n) for n = {}, got {} and {} values", n, l.size(), z.size());
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<int>(n), l.data(),
              static_cast<int>(n), z.data(), 1);
  return z;
}

}  // namespace hm::data
