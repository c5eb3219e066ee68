#include "harmonic/nn/density_metrics.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/ops/dft.h"

namespace hm::nn {

namespace {

// (..., m) float input -> m, checked; the leading shape is the output shape.
int64_t check_rows(const Tensor& t, std::string_view fn, std::string_view what) {
  check(t.defined() && is_floating(t.dtype()) && t.dim() >= 1 && t.size(-1) >= 1, fn,
        "{} must be a float tensor (..., m) with m >= 1, got {}", what, t.desc());
  return t.size(-1);
}

Shape leading_shape(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 1); }

// The Gaussian of std sigma and radius m - 1, normalised over r = -(m-1)..m-1, folded onto the
// circle: k_d = sum of w_r over r = d (mod m). Circular filtering with radius m - 1 is then the
// circular convolution out_i = sum_d k_d y_{(i + d) mod m}.
std::vector<double> folded_gaussian(int64_t m, double sigma) {
  std::vector<double> k(static_cast<size_t>(m), 0.0);
  double total = 0.0;
  for (int64_t r = -(m - 1); r <= m - 1; ++r) total += std::exp(-0.5 * r * r / (sigma * sigma));
  for (int64_t r = -(m - 1); r <= m - 1; ++r) k[((r % m) + m) % m] += std::exp(-0.5 * r * r / (sigma * sigma)) / total;
  return k;
}

}  // namespace

Tensor kl_divergence(const Tensor& p, const Tensor& q) {
  const int64_t m = check_rows(p, "kl_divergence", "p");
  check_rows(q, "kl_divergence", "q");
  HM_CHECK(p.shape() == q.shape(), "kl_divergence", "p and q must have the same shape, got {} and {}", str(p.shape()),
           str(q.shape()));
  std::vector<double> pv = p.to_vector(), qv = q.to_vector();
  for (size_t i = 0; i < pv.size(); ++i)
    HM_CHECK(pv[i] >= 0.0 && qv[i] >= 0.0 && std::isfinite(pv[i]) && std::isfinite(qv[i]), "kl_divergence",
             "p and q must be finite and non-negative, got p = {}, q = {} at element {} of {}", pv[i], qv[i], i,
             str(p.shape()));
  const int64_t rows = p.numel() / m;
  std::vector<double> out(static_cast<size_t>(rows), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < m; ++j) {
      double pj = pv[r * m + j];
      if (pj > 0.0) out[r] += pj * (std::log(pj) - std::log(std::max(qv[r * m + j], 1e-30)));
    }
  return from_vector(out, leading_shape(p), {.dtype = DType::Float64});
}

Tensor circular_gaussian_filter(const Tensor& y, double sigma) {
  const int64_t m = check_rows(y, "circular_gaussian_filter", "y");
  check(sigma > 0.0 && std::isfinite(sigma), "circular_gaussian_filter", "sigma must be positive, got {}", sigma);
  std::vector<double> k = folded_gaussian(m, sigma), v = y.to_vector(), out(v.size(), 0.0);
  const int64_t rows = y.numel() / m;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < m; ++i) {
      double acc = 0.0;
      for (int64_t d = 0; d < m; ++d) acc += k[d] * v[r * m + (i + d) % m];
      out[r * m + i] = acc;
    }
  return from_vector(out, y.shape(), {.dtype = DType::Float64});
}

// Computed in the frequency domain: y - G*y is the circular convolution of y with delta - k, so
// by Parseval ||y - G*y||^2 = (1/m) sum_f |Y_f|^2 (1 - K_f)^2, with K the (real: k is
// symmetric) DFT of the folded kernel. That is one DFT per row and one per sigma instead of
// O(m^2) work per (row, sigma), and lets the Appendix B noise check use long signals. Every
// term is non-negative, so there is no cancellation; the test compares it with the direct
// definition through circular_gaussian_filter.
// With norm L1 there is no Parseval shortcut: each sigma's residual Y_f (1 - K_f) goes back
// through an inverse DFT, max_sigma / 2 inverse DFTs per row, still O(m log m) each.
Tensor smoothness(const Tensor& y, int64_t max_sigma, SmoothnessNorm norm) {
  const int64_t m = check_rows(y, "smoothness", "y");
  check(max_sigma >= 1, "smoothness", "max_sigma must be >= 1, got {}", max_sigma);
  std::vector<double> v = y.to_vector();
  for (size_t i = 0; i < v.size(); ++i)
    HM_CHECK(std::isfinite(v[i]), "smoothness", "y must be finite, got {} at element {} of {}", v[i], i,
             str(y.shape()));
  // residual[s][f] = 1 - K_f for sigma = s + 1; gain = its square (L2).
  std::vector<std::vector<double>> residual(static_cast<size_t>(max_sigma)), gain(static_cast<size_t>(max_sigma));
  std::vector<double> weight(static_cast<size_t>(max_sigma));
  for (int64_t s = 1; s <= max_sigma; ++s) {
    std::vector<double> k = folded_gaussian(m, static_cast<double>(s));
    std::vector<std::complex<double>> kf(k.begin(), k.end());
    dft_inplace(kf);
    auto &r = residual[s - 1], &g = gain[s - 1];
    r.resize(static_cast<size_t>(m)), g.resize(static_cast<size_t>(m));
    for (int64_t f = 0; f < m; ++f) r[f] = 1.0 - kf[f].real(), g[f] = r[f] * r[f];
    weight[s - 1] = 6.0 / (M_PI * M_PI * static_cast<double>(s) * static_cast<double>(s));
  }
  const int64_t rows = y.numel() / m;
  std::vector<double> out(static_cast<size_t>(rows), 0.0), power(static_cast<size_t>(m));
  std::vector<std::complex<double>> row(static_cast<size_t>(m)), diff(static_cast<size_t>(m));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) row[j] = v[r * m + j];
    dft_inplace(row);
    for (int64_t f = 0; f < m; ++f) power[f] = std::norm(row[f]);
    double total = 0.0;
    if (norm == SmoothnessNorm::L2) {
      for (int64_t s = 0; s < max_sigma; ++s) {
        double sq = 0.0;
        for (int64_t f = 0; f < m; ++f) sq += power[f] * gain[s][f];
        total += weight[s] * std::sqrt(sq / static_cast<double>(m));
      }
    } else {
      // Y_f (1 - K_f) is Hermitian, so each residual is real: two sigmas share one inverse DFT,
      // one as its real part and the next as its imaginary part.
      for (int64_t s = 0; s < max_sigma; s += 2) {
        const bool pair = s + 1 < max_sigma;
        for (int64_t f = 0; f < m; ++f)
          diff[f] = row[f] * std::complex<double>(residual[s][f], pair ? residual[s + 1][f] : 0.0);
        dft_inplace(diff, true);
        double l1 = 0.0, l1_next = 0.0;
        for (int64_t j = 0; j < m; ++j) l1 += std::fabs(diff[j].real()), l1_next += std::fabs(diff[j].imag());
        total += weight[s] * l1 + (pair ? weight[s + 1] * l1_next : 0.0);
      }
    }
    out[r] = total;
  }
  return from_vector(out, leading_shape(y), {.dtype = DType::Float64});
}

Tensor spectral_entropy(const Tensor& y) {
  const int64_t m = check_rows(y, "spectral_entropy", "y");
  check(m >= 4, "spectral_entropy", "needs m >= 4 samples per row (two frequencies above DC), got {}", m);
  std::vector<double> v = y.to_vector();
  const int64_t rows = y.numel() / m, freqs = m / 2;
  std::vector<double> out(static_cast<size_t>(rows), 0.0), power(static_cast<size_t>(freqs));
  std::vector<std::complex<double>> row(static_cast<size_t>(m));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) {
      HM_CHECK(std::isfinite(v[r * m + j]), "spectral_entropy", "y must be finite, got {} at element {} of {}",
               v[r * m + j], r * m + j, str(y.shape()));
      row[j] = v[r * m + j];
    }
    dft_inplace(row);
    double total = 0.0;
    for (int64_t f = 1; f <= freqs; ++f) total += (power[f - 1] = std::norm(row[f]));
    if (total <= 0.0) continue;
    double h = 0.0;
    for (double p : power)
      if (p > 0.0) h -= (p / total) * std::log2(p / total);
    out[r] = h / std::log2(static_cast<double>(freqs));
  }
  return from_vector(out, leading_shape(y), {.dtype = DType::Float64});
}

// The expectation is taken under the row normalised to sum 1 (identical for a pmf, and robust
// to heads that add a small floor such as the GMM head's 1e-5). Rounding is half to even, as
// torch.round and numpy.round do.
double expected_bin_mse(const Tensor& pmf, const Tensor& target_bins) {
  check(pmf.defined() && is_floating(pmf.dtype()) && pmf.dim() == 2 && pmf.size(0) >= 1 && pmf.size(1) >= 1,
        "expected_bin_mse", "pmf must be a float (n, m) tensor with n, m >= 1, got {}", pmf.desc());
  const int64_t n = pmf.size(0), m = pmf.size(1);
  HM_CHECK((target_bins.defined() && target_bins.dtype() == DType::Int64 && target_bins.shape() == Shape{n}),
           "expected_bin_mse", "target_bins must be int64 ({}) to match pmf {}, got {}", n, str(pmf.shape()),
           target_bins.desc());
  std::vector<double> p = pmf.to_vector();
  std::vector<int64_t> t = target_bins.to_vector_as<int64_t>();
  auto centre = [m](double j) { return -1.0 + (2.0 * j + 1.0) / static_cast<double>(m); };
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    check(t[i] >= 0 && t[i] < m, "expected_bin_mse", "target bin {} of row {} is outside [0, {})", t[i], i, m);
    double mass = 0.0, first = 0.0;
    for (int64_t j = 0; j < m; ++j) {
      double pj = p[i * m + j];
      check(pj >= 0.0 && std::isfinite(pj), "expected_bin_mse", "pmf must be finite and non-negative, got {} at ({}, {})",
            pj, i, j);
      mass += pj;
      first += pj * static_cast<double>(j);
    }
    HM_CHECK(mass > 0.0, "expected_bin_mse", "row {} of pmf {} has zero mass", i, str(pmf.shape()));
    double bin = std::nearbyint(first / mass);  // default rounding mode: to nearest, ties to even
    double d = centre(bin) - centre(static_cast<double>(t[i]));
    total += d * d;
  }
  return total / static_cast<double>(n);
}

double perplexity(const Tensor& nll) {
  check(nll.defined() && is_floating(nll.dtype()) && nll.numel() >= 1, "perplexity",
        "nll must be a non-empty float tensor, got {}", nll.desc());
  std::vector<double> v = nll.to_vector();
  double total = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    check(std::isfinite(v[i]), "perplexity", "nll must be finite, got {} at element {}", v[i], i);
    total += v[i];
  }
  return std::exp(total / static_cast<double>(v.size()));
}

}  // namespace hm::nn
