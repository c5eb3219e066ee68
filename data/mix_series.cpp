#include "harmonic/data/mix_series.h"

#include <cmath>
#include <vector>

#include "harmonic/core/checked_math.h"
#include "harmonic/core/cpu_allocator.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::data {

namespace {

constexpr double kTwoPi = 2.0 * M_PI;

std::vector<double> draw_uniform(int64_t n, double low, double high, Generator& gen) {
  return uniform({n}, low, high, {.dtype = DType::Float64}, &gen).to_vector();
}
std::vector<double> draw_normal(int64_t n, double std, Generator& gen) {
  return normal({n}, 0.0, std, {.dtype = DType::Float64}, &gen).to_vector();
}
Tensor f64(const std::vector<double>& v, const Shape& shape) {
  return from_vector(v, shape, {.dtype = DType::Float64});
}

void check_float(const Tensor& t, int64_t dims, std::string_view fn, std::string_view name) {
  HM_CHECK(t.defined() && is_floating(t.dtype()) && t.dim() == dims, fn, "{} must be a {}-d float tensor, got {}", name,
           dims, t.defined() ? t.desc() : std::string("undefined"));
}

void check_options(MixKind kind, const MixSeriesOptions& o) {
  constexpr std::string_view fn = "make_mix_series";
  check(o.components >= 1, fn, "components K must be >= 1, got {}", o.components);
  check(o.length >= 2, fn, "length T must be >= 2, got {}", o.length);
  check(o.size >= 2, fn, "size N must be >= 2, got {}", o.size);
  if (kind == MixKind::Sin)
    check(o.terms >= 1, fn, "mix-sin needs terms D >= 1 sines per component, got {}", o.terms);
  else
    check(o.terms == 5 || o.terms == 10 || o.terms == 15, fn, "mix-poly degree must be 5, 10 or 15, got {}", o.terms);
  check(o.mix_std > 0.0 && std::isfinite(o.mix_std), fn, "mix_std must be positive, got {}", o.mix_std);
  check(o.train_fraction > 0.0 && o.train_fraction < 1.0, fn, "train_fraction must be in (0, 1), got {}",
        o.train_fraction);
  // the generator's host buffers: (N, T) series, (N, K) rates, (K, T) curves, (K, D) terms
  for (auto [a, b] :
       {std::pair{o.size, o.length}, {o.size, o.components}, {o.components, o.length}, {o.components, o.terms}})
    check_host_fits(checked_mul(a, b, fn), sizeof(double), fn);
  const int64_t n_train = std::llround(o.train_fraction * static_cast<double>(o.size));
  check(n_train >= 1 && n_train < o.size, fn, "train_fraction {} of size {} leaves an empty split", o.train_fraction,
        o.size);
}

}  // namespace

std::string_view mix_kind_name(MixKind kind) { return kind == MixKind::Sin ? "mix-sin" : "mix-poly"; }

MixKind parse_mix_kind(std::string_view name) {
  if (name == "mix-sin" || name == "sin") return MixKind::Sin;
  if (name == "mix-poly" || name == "poly") return MixKind::Poly;
  throw_error("parse_mix_kind", fmt::format("unknown mix kind '{}' (expected mix-sin or mix-poly)", name));
}

Tensor mix_time_axis(int64_t length, MixVariant variant) {
  check(length >= 2, "mix_time_axis", "length T must be >= 2, got {}", length);
  check_host_fits(length, sizeof(double), "mix_time_axis");
  const double half = 0.5 * static_cast<double>(length);
  const int64_t first = variant == MixVariant::Paper ? 1 : 0;  // Alg. 1-2 count t = 1..T; load.py 0..T-1
  std::vector<double> u(length);
  for (int64_t k = 0; k < length; ++k) u[k] = (static_cast<double>(first + k) - half) / half;
  return f64(u, {length});
}

Tensor mix_sin_curves(const Tensor& freqs, const Tensor& phases, const Tensor& amplitudes, const Tensor& u) {
  constexpr std::string_view fn = "mix_sin_curves";
  check_float(freqs, 1, fn, "freqs");
  check_float(phases, 2, fn, "phases");
  check_float(amplitudes, 2, fn, "amplitudes");
  check_float(u, 1, fn, "u");
  const int64_t k = amplitudes.size(0), d = amplitudes.size(1), t = u.size(0);
  HM_CHECK(freqs.size(0) == d && phases.shape() == amplitudes.shape(), fn,
           "expected freqs (D), phases (K, D), amplitudes (K, D), got {}, {}, {}", str(freqs.shape()),
           str(phases.shape()), str(amplitudes.shape()));
  std::vector<double> f = freqs.to_vector(), th = phases.to_vector(), a = amplitudes.to_vector(), uv = u.to_vector();
  std::vector<double> c(static_cast<size_t>(k * t), 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t s = 0; s < t; ++s) {
      double acc = 0.0;
      for (int64_t j = 0; j < d; ++j) acc += a[i * d + j] * std::sin(kTwoPi * f[j] * uv[s] + kTwoPi * th[i * d + j]);
      c[i * t + s] = acc;
    }
  return f64(c, {k, t});
}

Tensor mix_poly_curves(const Tensor& amplitudes, const Tensor& u) {
  constexpr std::string_view fn = "mix_poly_curves";
  check_float(amplitudes, 2, fn, "amplitudes");
  check_float(u, 1, fn, "u");
  const int64_t k = amplitudes.size(0), d = amplitudes.size(1), t = u.size(0);
  std::vector<double> a = amplitudes.to_vector(), uv = u.to_vector();
  std::vector<double> c(static_cast<size_t>(k * t), 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t s = 0; s < t; ++s) {
      double acc = 0.0, power = 1.0;
      for (int64_t j = 0; j < d; ++j) acc += a[i * d + j] * (power *= uv[s]);  // a_i,j+1 u^(j+1)
      c[i * t + s] = acc;
    }
  return f64(c, {k, t});
}

MixSeries make_mix_series(MixKind kind, const MixSeriesOptions& options) {
  const MixSeriesOptions& o = options;
  check_options(kind, o);
  const int64_t n = o.size, t = o.length, k = o.components, d = o.terms;
  const bool paper = o.variant == MixVariant::Paper;
  const int64_t n_train = std::llround(o.train_fraction * static_cast<double>(n));

  MixSeries ds;
  ds.kind = kind;
  ds.options = o;
  ds.time_axis = mix_time_axis(t, o.variant);

  // Draw order (fixed, part of the determinism contract): the curves' parameters (mix-sin:
  // freqs, phases, amplitudes; mix-poly: amplitudes), then the N x K rates, then the biases.
  Generator gen(o.seed);
  if (kind == MixKind::Sin) {
    std::vector<double> f;
    if (paper) {
      f = draw_uniform(d, 0.1, 3.0, gen);
    } else {
      for (double v : randint(1, 30, {d}, &gen).to_vector()) f.push_back(0.1 * v);
    }
    std::vector<double> th = draw_uniform(paper ? d : k * d, -1.0, 1.0, gen), phases(k * d);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < d; ++j) phases[i * d + j] = paper ? th[j] : th[i * d + j];
    ds.freqs = f64(f, {d});
    ds.phases = f64(phases, {k, d});
    ds.amplitudes = f64(draw_uniform(k * d, -1.0, 1.0, gen), {k, d});
    ds.curves = mix_sin_curves(ds.freqs, ds.phases, ds.amplitudes, ds.time_axis);
  } else {
    ds.amplitudes = f64(draw_uniform(k * d, -1.0, 1.0, gen), {k, d});
    ds.curves = mix_poly_curves(ds.amplitudes, ds.time_axis);
  }
  const int64_t kb = paper ? k : 1;
  std::vector<double> rates = draw_normal(n * k, o.mix_std, gen), biases = draw_normal(n * kb, o.mix_std, gen);
  ds.rates = f64(rates, {n, k});
  ds.biases = f64(biases, {n, kb});

  // x_l(t) = sum_i delta_li c_i(t) + sum_i b_li, accumulated in float64, stored as float32.
  std::vector<double> c = ds.curves.to_vector();
  std::vector<float> x(static_cast<size_t>(n * t));
  for (int64_t l = 0; l < n; ++l) {
    double offset = 0.0;
    for (int64_t i = 0; i < kb; ++i) offset += biases[l * kb + i];
    for (int64_t s = 0; s < t; ++s) {
      double acc = offset;
      for (int64_t i = 0; i < k; ++i) acc += rates[l * k + i] * c[i * t + s];
      x[l * t + s] = static_cast<float>(acc);
    }
  }
  ds.series = from_vector(x, {n, t, 1});
  ds.train = narrow(ds.series, 0, 0, n_train).contiguous();
  ds.test = narrow(ds.series, 0, n_train, n - n_train).contiguous();
  return ds;
}

Example next_step_pairs(const Tensor& series) {
  HM_CHECK(series.defined() && series.dim() == 3 && series.size(1) >= 2, "next_step_pairs",
           "expected series (N, T, F) with T >= 2, got {}",
           series.defined() ? series.desc() : std::string("undefined"));
  const int64_t t = series.size(1);
  return {narrow(series, 1, 0, t - 1).clone(), narrow(series, 1, 1, t - 1).clone()};
}

std::shared_ptr<TensorDataset> next_step_dataset(const Tensor& series) {
  Example pairs = next_step_pairs(series);
  return std::make_shared<TensorDataset>(pairs.input, pairs.target);
}

}  // namespace hm::data
