#include "harmonic/nn/init.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"

namespace hm::nn::init {
namespace {

// Random draws are made in float32, or float64 for float64 targets, then copied (and
// converted) into t so any floating dtype and layout works.
DType draw_dtype(const Tensor& t) { return t.dtype() == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_floating(const Tensor& t, const char* fn) {
  check(t.defined(), fn, "tensor is undefined");
  HM_CHECK(is_floating(t.dtype()), fn, "expected a floating tensor, got {}", t.desc());
}

int64_t pick_fan(const Shape& shape, FanMode mode, const char* fn) {
  auto [fan_in, fan_out] = fan_in_and_fan_out(shape, fn);
  return mode == FanMode::FanIn ? fan_in : fan_out;
}

// Inverse error function: Giles' single-precision approximation ("Approximating the erfinv
// function", 2010) polished by two Newton steps on erf, which gives double precision.
double erfinv(double y) {
  if (y <= -1.0) return -INFINITY;
  if (y >= 1.0) return INFINITY;
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = c + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = c + p * w;
    x = p * y;
  }
  const double k = 2.0 / std::sqrt(std::numbers::pi);
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

double normal_cdf(double z) { return 0.5 * (1.0 + std::erf(z / std::numbers::sqrt2)); }

}  // namespace

std::pair<int64_t, int64_t> fan_in_and_fan_out(const Shape& shape, const char* fn) {
  HM_CHECK(shape.size() >= 2, fn, "fan in and fan out need a tensor with at least 2 dims, got shape {}", str(shape));
  int64_t receptive = 1;
  for (size_t d = 2; d < shape.size(); ++d) receptive *= shape[d];
  return {shape[1] * receptive, shape[0] * receptive};
}

double calculate_gain(const std::string& nonlinearity, double param) {
  if (nonlinearity == "linear" || nonlinearity == "identity" || nonlinearity == "sigmoid" ||
      nonlinearity.starts_with("conv"))
    return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nonlinearity == "selu") return 0.75;
  throw_error("calculate_gain", fmt::format("unknown nonlinearity '{}'", nonlinearity));
}

Tensor uniform_(Tensor t, double lo, double hi, Generator* gen) {
  check_floating(t, "uniform_");
  NoGradGuard no_grad;
  t.copy_(uniform(t.shape(), lo, hi, {.dtype = draw_dtype(t), .device = t.device()}, gen));
  return t;
}

Tensor normal_(Tensor t, double mean, double std, Generator* gen) {
  check_floating(t, "normal_");
  NoGradGuard no_grad;
  t.copy_(normal(t.shape(), mean, std, {.dtype = draw_dtype(t), .device = t.device()}, gen));
  return t;
}

Tensor trunc_normal_(Tensor t, double mean, double std, double a, double b, Generator* gen) {
  check_floating(t, "trunc_normal_");
  check(a < b && std > 0, "trunc_normal_", "need a < b and std > 0, got a={} b={} std={}", a, b, std);
  NoGradGuard no_grad;
  // u ~ U(2 cdf(a') - 1, 2 cdf(b') - 1), x = mean + std sqrt(2) erfinv(u): PyTorch's method.
  double lo = 2.0 * normal_cdf((a - mean) / std) - 1.0, hi = 2.0 * normal_cdf((b - mean) / std) - 1.0;
  Tensor u = uniform(t.shape(), lo, hi, {.dtype = DType::Float64}, gen);  // host-side transform
  std::vector<double> v = u.to_vector();
  for (double& x : v) x = std::clamp(mean + std * std::numbers::sqrt2 * erfinv(x), a, b);
  t.copy_(from_vector(v, t.shape()));
  return t;
}

Tensor constant_(Tensor t, double value) {
  check(t.defined(), "constant_", "tensor is undefined");
  NoGradGuard no_grad;
  t.fill_(value);
  return t;
}

Tensor zeros_(Tensor t) { return constant_(std::move(t), 0.0); }
Tensor ones_(Tensor t) { return constant_(std::move(t), 1.0); }

Tensor kaiming_uniform_(Tensor t, double a, Generator* gen, FanMode mode, const std::string& nonlinearity) {
  check_floating(t, "kaiming_uniform_");
  double std =
      calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(pick_fan(t.shape(), mode, "kaiming_uniform_")));
  double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(t), -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, Generator* gen, FanMode mode, const std::string& nonlinearity) {
  check_floating(t, "kaiming_normal_");
  double std =
      calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(pick_fan(t.shape(), mode, "kaiming_normal_")));
  return normal_(std::move(t), 0.0, std, gen);
}

Tensor xavier_uniform_(Tensor t, double gain, Generator* gen) {
  check_floating(t, "xavier_uniform_");
  auto [fan_in, fan_out] = fan_in_and_fan_out(t.shape(), "xavier_uniform_");
  double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  return uniform_(std::move(t), -bound, bound, gen);
}

Tensor xavier_normal_(Tensor t, double gain, Generator* gen) {
  check_floating(t, "xavier_normal_");
  auto [fan_in, fan_out] = fan_in_and_fan_out(t.shape(), "xavier_normal_");
  double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(t), 0.0, std, gen);
}

}  // namespace hm::nn::init
