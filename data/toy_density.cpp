#include "harmonic/data/toy_density.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/fourier_head.h"

namespace hm::data {

namespace {

// Beta(100|x|, 100|y|) is undefined at x = 0 or y = 0 (a measure-zero event that float draws
// can still hit, and |x| ~ 1e-9 makes the Gamma draw underflow). Both shape parameters are
// raised to at least this value, in the sampler and in the closed-form density alike, so the
// data and its true pmf describe the same distribution and nothing is NaN.
constexpr double kMinBetaShape = 1e-3;
constexpr double kBetaScale = 100.0;

double beta_shape(double v) { return std::max(kBetaScale * std::fabs(v), kMinBetaShape); }

double log_normal_pdf(double z, double mean, double variance) {
  double d = z - mean;
  return -0.5 * d * d / variance - 0.5 * std::log(2.0 * M_PI * variance);
}

// log of 0.5 * a GMM of two equal-weight components at x and y.
double log_gmm2_pdf(double z, double x, double y, double variance) {
  double a = log_normal_pdf(z, x, variance), b = log_normal_pdf(z, y, variance);
  double hi = std::max(a, b);
  return hi + std::log(0.5 * (std::exp(a - hi) + std::exp(b - hi)));
}

// log density of z = r * B, r = +-1 equiprobable, B ~ Beta(a, b): log(0.5 BetaPdf(|z|)).
double log_signed_beta_pdf(double z, double a, double b) {
  double t = std::fabs(z);
  if (!(t > 0.0 && t < 1.0)) return -std::numeric_limits<double>::infinity();
  double log_beta_fn = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  return std::log(0.5) + (a - 1.0) * std::log(t) + (b - 1.0) * std::log1p(-t) - log_beta_fn;
}

double log_pdf(ToyDistribution kind, double x, double y, double z, double variance) {
  switch (kind) {
    case ToyDistribution::Gaussian: return log_normal_pdf(z, y, variance);
    case ToyDistribution::GMM2: return log_gmm2_pdf(z, x, y, variance);
    case ToyDistribution::Beta: return log_signed_beta_pdf(z, beta_shape(x), beta_shape(y));
  }
  return 0.0;
}

std::vector<double> draw_uniform(int64_t n, double low, double high, Generator& gen) {
  return uniform({n}, low, high, {.dtype = DType::Float64}, &gen).to_vector();
}
std::vector<double> draw_normal(int64_t n, Generator& gen) {
  return randn({n}, {.dtype = DType::Float64}, &gen).to_vector();
}

// log of Gamma(shape, 1) variates, one per shape, by Marsaglia and Tsang (2000): for a >= 1,
// d = a - 1/3, c = 1/sqrt(9d), v = (1 + c n)^3 with n ~ N(0,1), accept d v when
// log u < n^2/2 + d - d v + d log v. For a < 1, Gamma(a) = Gamma(a + 1) * U^(1/a), kept in
// log space because U^(1/a) underflows for small a. Rejection runs in rounds: every round
// draws one normal and one uniform per still-pending variate from `gen`, so the result is a
// deterministic function of the generator state.
std::vector<double> log_gamma_variates(const std::vector<double>& shapes, Generator& gen) {
  const int64_t n = static_cast<int64_t>(shapes.size());
  std::vector<double> out(shapes.size());
  std::vector<int64_t> pending(shapes.size());
  for (int64_t i = 0; i < n; ++i) pending[i] = i;
  while (!pending.empty()) {
    const int64_t k = static_cast<int64_t>(pending.size());
    std::vector<double> normals = draw_normal(k, gen), unis = draw_uniform(k, 0.0, 1.0, gen);
    std::vector<int64_t> rejected;
    for (int64_t j = 0; j < k; ++j) {
      int64_t i = pending[j];
      double a = shapes[i] < 1.0 ? shapes[i] + 1.0 : shapes[i];
      double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
      double t = 1.0 + c * normals[j];
      double v = t * t * t;
      if (v > 0.0 && unis[j] > 0.0 &&
          std::log(unis[j]) < 0.5 * normals[j] * normals[j] + d - d * v + d * std::log(v))
        out[i] = std::log(d * v);
      else
        rejected.push_back(i);
    }
    pending = std::move(rejected);
  }
  std::vector<double> boost = draw_uniform(n, 0.0, 1.0, gen);  // one per variate, used when a < 1
  for (int64_t i = 0; i < n; ++i)
    if (shapes[i] < 1.0) out[i] += std::log(std::max(boost[i], 1e-300)) / shapes[i];
  return out;
}

ToyDensitySplit make_split(ToyDistribution kind, const std::vector<double>& x, const std::vector<double>& y,
                           const std::vector<double>& z, int64_t begin, int64_t end,
                           const ToyDensityOptions& opt) {
  const int64_t n = end - begin, m = opt.bins;
  auto slice = [&](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + begin, v.begin() + end);
  };
  ToyDensitySplit s;
  s.x = from_vector(slice(x), {n}, {.dtype = DType::Float64});
  s.y = from_vector(slice(y), {n}, {.dtype = DType::Float64});
  s.z = from_vector(slice(z), {n}, {.dtype = DType::Float64});
  std::vector<int64_t> xb = quantize_to_bins(s.x, m).to_vector_as<int64_t>();
  std::vector<int64_t> yb = quantize_to_bins(s.y, m).to_vector_as<int64_t>();
  std::vector<float> bin_in(2 * n), raw_in(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    bin_in[2 * i] = static_cast<float>(xb[i]);
    bin_in[2 * i + 1] = static_cast<float>(yb[i]);
    raw_in[2 * i] = static_cast<float>(x[begin + i]);
    raw_in[2 * i + 1] = static_cast<float>(y[begin + i]);
  }
  s.bin_inputs = from_vector(bin_in, {n, 2});
  s.raw_inputs = from_vector(raw_in, {n, 2});
  s.target_bins = quantize_to_bins(s.z, m);

  // The pdf at the bin centres, normalised per row in log space (max subtracted first) so a
  // sharply peaked Beta row cannot underflow to an all-zero row.
  std::vector<double> centres = fourier_bin_centres(m).to_vector();
  std::vector<double> pmf(static_cast<size_t>(n * m)), logp(static_cast<size_t>(m));
  for (int64_t i = 0; i < n; ++i) {
    double hi = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < m; ++j) {
      logp[j] = log_pdf(kind, x[begin + i], y[begin + i], centres[j], opt.variance);
      hi = std::max(hi, logp[j]);
    }
    check(std::isfinite(hi), "make_toy_density", "true pdf is zero at every bin centre for x = {}, y = {}",
          x[begin + i], y[begin + i]);
    double total = 0.0;
    for (int64_t j = 0; j < m; ++j) total += (pmf[i * m + j] = std::exp(logp[j] - hi));
    for (int64_t j = 0; j < m; ++j) pmf[i * m + j] /= total;
  }
  s.true_pmf = from_vector(pmf, {n, m}, {.dtype = DType::Float64});
  return s;
}

}  // namespace

std::string_view toy_distribution_name(ToyDistribution kind) {
  switch (kind) {
    case ToyDistribution::Gaussian: return "gaussian";
    case ToyDistribution::GMM2: return "gmm2";
    case ToyDistribution::Beta: return "beta";
  }
  return "unknown";
}

ToyDistribution parse_toy_distribution(std::string_view name) {
  for (ToyDistribution k : {ToyDistribution::Gaussian, ToyDistribution::GMM2, ToyDistribution::Beta})
    if (name == toy_distribution_name(k)) return k;
  if (name == "gmm-2") return ToyDistribution::GMM2;  // the paper's spelling
  throw_error("parse_toy_distribution",
              fmt::format("unknown toy distribution '{}' (expected gaussian, gmm2 or beta)", name));
}

ToyDensityDataset make_toy_density(ToyDistribution kind, uint64_t seed, const ToyDensityOptions& options) {
  const ToyDensityOptions& o = options;
  const int64_t n = o.size;
  check(n >= 2, "make_toy_density", "size must be >= 2, got {}", n);
  check(o.variance > 0.0 && std::isfinite(o.variance), "make_toy_density", "variance must be positive, got {}",
        o.variance);
  check(o.low < o.high && std::isfinite(o.low) && std::isfinite(o.high), "make_toy_density",
        "interval must satisfy low < high, got [{}, {}]", o.low, o.high);
  check(o.bins >= 2, "make_toy_density", "bins must be >= 2, got {}", o.bins);
  const int64_t n_train = static_cast<int64_t>(std::llround(o.train_fraction * static_cast<double>(n)));
  check(o.train_fraction > 0.0 && o.train_fraction < 1.0 && n_train >= 1 && n_train < n, "make_toy_density",
        "train_fraction {} of size {} leaves an empty split", o.train_fraction, n);

  Generator gen(seed);
  const double sd = std::sqrt(o.variance);
  // Draw order (fixed, part of the determinism contract): x, then the y stream, then z's.
  std::vector<double> x = draw_uniform(n, o.low, o.high, gen), y(n), z(n);
  if (kind == ToyDistribution::GMM2) {
    y = draw_uniform(n, o.low, o.high, gen);
  } else {
    std::vector<double> e = draw_normal(n, gen);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] + sd * e[i];
  }
  switch (kind) {
    case ToyDistribution::Gaussian: {
      std::vector<double> e = draw_normal(n, gen);
      for (int64_t i = 0; i < n; ++i) z[i] = y[i] + sd * e[i];
      break;
    }
    case ToyDistribution::GMM2: {
      std::vector<double> pick = draw_uniform(n, 0.0, 1.0, gen), e = draw_normal(n, gen);
      for (int64_t i = 0; i < n; ++i) z[i] = (pick[i] < 0.5 ? x[i] : y[i]) + sd * e[i];
      break;
    }
    case ToyDistribution::Beta: {
      // B = Ga / (Ga + Gb) = 1 / (1 + exp(log Gb - log Ga)), from two Gamma variates per point.
      std::vector<double> shapes(2 * n);
      for (int64_t i = 0; i < n; ++i) shapes[i] = beta_shape(x[i]), shapes[n + i] = beta_shape(y[i]);
      std::vector<double> lg = log_gamma_variates(shapes, gen);
      std::vector<double> sign = draw_uniform(n, 0.0, 1.0, gen);
      for (int64_t i = 0; i < n; ++i) {
        double b = 1.0 / (1.0 + std::exp(lg[n + i] - lg[i]));
        z[i] = sign[i] < 0.5 ? -b : b;
      }
      break;
    }
  }
  ToyDensityDataset ds{kind, o, {}, {}};
  ds.train = make_split(kind, x, y, z, 0, n_train, o);
  ds.test = make_split(kind, x, y, z, n_train, n, o);
  return ds;
}

Tensor toy_conditional_pdf(ToyDistribution kind, const Tensor& x, const Tensor& y, const Tensor& z, double variance) {
  HM_CHECK(x.defined() && y.defined() && z.defined() && is_floating(x.dtype()) && is_floating(y.dtype()) &&
               is_floating(z.dtype()),
           "toy_conditional_pdf", "x, y, z must be float tensors, got {}, {}, {}", x.desc(), y.desc(), z.desc());
  HM_CHECK(x.dim() == 1 && y.shape() == x.shape(), "toy_conditional_pdf", "x and y must both be (n), got {} and {}",
           str(x.shape()), str(y.shape()));
  const int64_t n = x.size(0);
  HM_CHECK(z.dim() == 1 || (z.dim() == 2 && z.size(0) == n), "toy_conditional_pdf",
           "z must be (P) or (n, P) with n = {}, got {}", n, str(z.shape()));
  check(variance > 0.0 && std::isfinite(variance), "toy_conditional_pdf", "variance must be positive, got {}",
        variance);
  const int64_t p = z.size(-1);
  const bool shared = z.dim() == 1;
  std::vector<double> xv = x.to_vector(), yv = y.to_vector(), zv = z.to_vector();
  std::vector<double> out(static_cast<size_t>(n * p));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < p; ++j)
      out[i * p + j] = std::exp(log_pdf(kind, xv[i], yv[i], zv[shared ? j : i * p + j], variance));
  return from_vector(out, {n, p}, {.dtype = DType::Float64});
}

Tensor quantize_to_bins(const Tensor& values, int64_t bins) {
  HM_CHECK(values.defined() && is_floating(values.dtype()), "quantize_to_bins", "expected a float tensor, got {}",
           values.desc());
  check(bins >= 1, "quantize_to_bins", "bins must be >= 1, got {}", bins);
  std::vector<double> v = values.to_vector();
  std::vector<int64_t> out(v.size());
  const double m = static_cast<double>(bins);
  for (size_t i = 0; i < v.size(); ++i) {
    HM_CHECK(!std::isnan(v[i]), "quantize_to_bins", "NaN at element {} of {}", i, values.desc());
    double b = std::floor((v[i] + 1.0) * 0.5 * m);
    out[i] = static_cast<int64_t>(std::clamp(b, 0.0, m - 1.0));
  }
  return from_vector(out, values.shape());
}

}  // namespace hm::data
