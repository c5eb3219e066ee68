#include "harmonic/core/factories.h"

#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/constant_cache.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/philox_draw.h"

namespace hm {
namespace {

Tensor finish(Tensor t, const TensorOptions& opt) {
  if (opt.requires_grad) t.requires_grad_(true);
  return t;
}

Generator& pick(Generator* gen) { return gen ? *gen : default_generator(); }

// A fresh tensor of host-computed values (arange, linspace, eye). On a CUDA device: a device
// copy of device_constant's copy, so a step that calls these copies nothing from the host
// after its first run (a CUDA graph can capture it) and the caller may still write to it.
Tensor fresh_from_host(const std::vector<double>& values, const Shape& shape, const TensorOptions& opt) {
  if (!opt.device.is_cuda()) return from_vector(values, shape, opt);
  TensorOptions host = opt;
  host.device = Device::cpu(), host.requires_grad = false;
  Tensor t;
  {
    NoGradGuard no_grad;
    t = device_constant(from_vector(values, shape, host), opt.device).clone();
  }
  return finish(t, opt);
}

}  // namespace

Tensor empty(const Shape& shape, TensorOptions opt) {
  return finish(Tensor::empty(shape, opt.dtype, opt.device), opt);
}

Tensor full(const Shape& shape, double value, TensorOptions opt) {
  Tensor t = Tensor::empty(shape, opt.dtype, opt.device);
  t.fill_(value);
  return finish(t, opt);
}

Tensor zeros(const Shape& shape, TensorOptions opt) { return full(shape, 0.0, opt); }
Tensor ones(const Shape& shape, TensorOptions opt) { return full(shape, 1.0, opt); }
Tensor scalar_tensor(double value, TensorOptions opt) { return full({}, value, opt); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), {.dtype = t.dtype(), .device = t.device()}); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), {.dtype = t.dtype(), .device = t.device()}); }
Tensor full_like(const Tensor& t, double value) {
  return full(t.shape(), value, {.dtype = t.dtype(), .device = t.device()});
}

Tensor arange(double start, double end, double step, TensorOptions opt) {
  check(step != 0, "arange", "step must be non-zero");
  check(std::isfinite(start) && std::isfinite(end) && std::isfinite(step), "arange", "non-finite bounds");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((end - start) / step)));
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
  return fresh_from_host(v, {n}, opt);
}

Tensor arange(int64_t end, TensorOptions opt) { return arange(0.0, static_cast<double>(end), 1.0, opt); }

Tensor linspace(double start, double end, int64_t steps, TensorOptions opt) {
  check(steps >= 0, "linspace", "steps must be >= 0, got {}", steps);
  std::vector<double> v(steps);
  for (int64_t i = 0; i < steps; ++i)
    v[i] = steps == 1 ? start : start + (end - start) * static_cast<double>(i) / static_cast<double>(steps - 1);
  return fresh_from_host(v, {steps}, opt);
}

Tensor eye(int64_t n, TensorOptions opt) {
  std::vector<double> v(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  return fresh_from_host(v, {n, n}, opt);
}

Tensor uniform(const Shape& shape, double low, double high, TensorOptions opt, Generator* gen) {
  check(low <= high, "uniform", "low {} > high {}", low, high);
  Tensor t = Tensor::empty(shape, opt.dtype, opt.device);
  // Inside a CUDA graph capture the offset is read on the device at each replay (core/philox_draw.h).
  const PhiloxDraw draw = reserve_philox(pick(gen), static_cast<uint64_t>(t.numel()), opt.device);
  uniform_kernel(opt.device, t, draw.seed, draw.offset, draw.base, low, high);
  return finish(t, opt);
}

Tensor rand(const Shape& shape, TensorOptions opt, Generator* gen) { return uniform(shape, 0.0, 1.0, opt, gen); }

Tensor normal(const Shape& shape, double mean, double std, TensorOptions opt, Generator* gen) {
  check(std >= 0, "normal", "std must be >= 0, got {}", std);
  Tensor t = Tensor::empty(shape, opt.dtype, opt.device);
  const PhiloxDraw draw = reserve_philox(pick(gen), static_cast<uint64_t>(t.numel()), opt.device);
  normal_kernel(opt.device, t, draw.seed, draw.offset, draw.base, mean, std);
  return finish(t, opt);
}

Tensor randn(const Shape& shape, TensorOptions opt, Generator* gen) { return normal(shape, 0.0, 1.0, opt, gen); }

Tensor randint(int64_t low, int64_t high, const Shape& shape, Generator* gen) {
  check(low < high, "randint", "empty range [{}, {})", low, high);
  Tensor u = uniform(shape, 0.0, 1.0, {.dtype = DType::Float64}, gen);
  std::vector<int64_t> v(u.numel());
  const double* p = u.data<double>();
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::min(high - 1, low + static_cast<int64_t>(std::floor(p[i] * static_cast<double>(high - low))));
  return from_vector(v, shape);
}

Tensor randperm(int64_t n, Generator* gen) {
  check(n >= 0, "randperm", "n must be >= 0, got {}", n);
  Tensor u = uniform({n}, 0.0, 1.0, {.dtype = DType::Float64}, gen);
  const double* p = u.data<double>();
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = std::min(i, static_cast<int64_t>(p[i] * static_cast<double>(i + 1)));
    std::swap(v[i], v[j]);
  }
  return from_vector(v, {n});
}

template <class T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape, TensorOptions opt) {
  HM_CHECK(static_cast<int64_t>(values.size()) == numel_of(shape), "from_vector", "{} values for shape {}",
           values.size(), str(shape));
  Tensor host = Tensor::empty(shape, dtype_of<T>(), Device::cpu());
  if (!values.empty()) std::copy(values.begin(), values.end(), host.data<T>());
  Tensor t = host.to(opt.dtype).to(opt.device);
  return finish(t, opt);
}
template Tensor from_vector<float>(const std::vector<float>&, const Shape&, TensorOptions);
template Tensor from_vector<double>(const std::vector<double>&, const Shape&, TensorOptions);
template Tensor from_vector<int64_t>(const std::vector<int64_t>&, const Shape&, TensorOptions);

Tensor tensor(std::initializer_list<double> values, const Shape& shape, TensorOptions opt) {
  Shape s = shape.empty() ? Shape{static_cast<int64_t>(values.size())} : shape;
  return from_vector(std::vector<double>(values), s, opt);
}

}  // namespace hm

// -- device_constant (core/constant_cache.h) ----------------------------------------------------

namespace hm {

Tensor device_constant(const Tensor& host, Device device) {
  check(host.defined() && host.device().is_cpu(), "device_constant", "expected a host tensor, got {}",
        host.defined() ? host.desc() : std::string("an undefined tensor"));
  if (device.is_cpu()) return host;
  const Tensor c = host.contiguous();
  const size_t nbytes = static_cast<size_t>(c.numel()) * dtype_size(c.dtype());
  if (nbytes > kMaxDeviceConstantBytes) return c.to(device);
  // Key: device, dtype, shape, then the bytes.
  std::string key = fmt::format("{}|{}|{}|", device.str(), dtype_name(c.dtype()), str(c.shape()));
  key.append(static_cast<const char*>(c.raw_data()), nbytes);
  static std::mutex mutex;
  static std::unordered_map<std::string, Tensor> cache;
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  Tensor on_device;
  {
    NoGradGuard no_grad;
    on_device = c.to(device);
  }
  std::lock_guard lock(mutex);
  if (cache.size() >= kMaxDeviceConstants) return on_device;
  return cache.emplace(std::move(key), on_device).first->second;
}

}  // namespace hm
