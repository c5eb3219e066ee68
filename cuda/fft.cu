// CUDA bodies of the FFT kernel slots (ops/fft_kernels.h): the transforms call cuFFT (batched
// 1-d plans, cached per (device, type, length, batch) and bound to the device's stream).
// cuFFT leaves transforms unscaled, so a scale pass follows when the op asks for one; its C2R
// overwrites its input, so irfft copies the spectrum first (zeroing the ignored imaginary parts
// of DC and Nyquist on the way).
// The host twins run the same copy/scale functors around the CPU row transforms
// (ops/cpu/fft_plan.h): everything but the cuFFT calls is tested without a GPU.
#include <cufft.h>

#include <map>
#include <mutex>
#include <tuple>

#include "harmonic/cuda/runtime/emulation.h"
#include "harmonic/cuda/device/launch.cuh"
#include "harmonic/ops/cpu/fft_plan.h"
#include "harmonic/ops/fft_functors.h"
#include "harmonic/ops/fft_kernels.h"

namespace hm::cuda {
namespace {

#define HM_CUFFT_CHECK(call) check_cufft((call), #call, __FILE__, __LINE__)

void check_cufft(cufftResult status, const char* call, const char* file, int line) {
  if (status != CUFFT_SUCCESS) [[unlikely]]
    throw_error("cufft", fmt::format("{} failed at {}:{}: cufftResult {}", call, file, line, static_cast<int>(status)));
}

int as_int(int64_t v, const char* what) {
  check(v >= 0 && v <= INT_MAX, "fft", "cuFFT takes int sizes: {} = {} is too large", what, v);
  return static_cast<int>(v);
}

constexpr size_t kMaxPlans = 64;  // each holds a device work area

// Runs fn(plan) on the cached plan for (device, type, n, batch), on the device's stream. The
// lock is held through the call: a plan's stream binding and work area are per plan.
template <class F>
void with_plan(int device, cufftType type, int64_t n, int64_t batch, F&& fn) {
  static std::mutex mutex;
  static std::map<std::tuple<int, int, int64_t, int64_t>, cufftHandle> plans;
  std::lock_guard<std::mutex> lock(mutex);
  DeviceGuard guard(device);
  const auto key = std::make_tuple(device, static_cast<int>(type), n, batch);
  auto it = plans.find(key);
  if (it == plans.end() && plans.size() >= kMaxPlans) {  // varying batch sizes: start over
    for (auto& [k, p] : plans) cufftDestroy(p);
    plans.clear();
  }
  if (it == plans.end()) {
    cufftHandle plan;
    int len = as_int(n, "n");
    HM_CUFFT_CHECK(cufftPlanMany(&plan, 1, &len, nullptr, 1, 0, nullptr, 1, 0, type, as_int(batch, "batch")));
    it = plans.emplace(key, plan).first;
  }
  HM_CUFFT_CHECK(cufftSetStream(it->second, stream(device)));
  fn(it->second);
}

template <class T>
struct Scale {
  T* x;
  T s;
  HM_HD void operator()(int64_t i) const { x[i] *= s; }
};

// dst = src (rows, bins, 2) with Im X_0 and (n even) Im X_{n/2} set to 0.
template <class T>
struct CopyHermitian {
  const T* src;
  T* dst;
  int64_t bins, n;
  HM_HD void operator()(int64_t i) const {
    const int64_t c = i % (2 * bins);
    const bool ignored = c == 1 || (n % 2 == 0 && c == 2 * (n / 2) + 1);
    dst[i] = ignored ? T(0) : src[i];
  }
};

template <class T>
void scale_by(Exec E, int device, const Tensor& t, double scale) {
  if (scale != 1.0)
    for_each_index(E, device, t.numel(), Scale<T>{static_cast<T*>(t.raw_data()), static_cast<T>(scale)});
}

template <Exec E>
void rfft_on(const Tensor& x, int64_t n, double scale, const Tensor& out) {
  const int device = kernel_device(E, "rfft", {&x, &out});
  const int64_t rows = n ? x.numel() / n : 0;
  if (rows == 0) return;
  dispatch_float(x.dtype(), "rfft", [&]<class T>() {
    if constexpr (E == Exec::Device) {
      constexpr bool dbl = std::is_same_v<T, double>;
      with_plan(device, dbl ? CUFFT_D2Z : CUFFT_R2C, n, rows, [&](cufftHandle p) {
        if constexpr (dbl)
          HM_CUFFT_CHECK(
              cufftExecD2Z(p, static_cast<double*>(x.raw_data()), static_cast<cufftDoubleComplex*>(out.raw_data())));
        else
          HM_CUFFT_CHECK(
              cufftExecR2C(p, static_cast<float*>(x.raw_data()), static_cast<cufftComplex*>(out.raw_data())));
      });
      scale_by<T>(E, device, out, scale);
    } else {
      cpu_fft::rfft_rows<T>(static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), rows, n,
                            static_cast<T>(scale));
    }
  });
}

template <Exec E>
void irfft_on(const Tensor& spec, int64_t n, double scale, const Tensor& out) {
  const int device = kernel_device(E, "irfft", {&spec, &out});
  const int64_t rows = n ? out.numel() / n : 0, bins = n / 2 + 1;
  if (rows == 0) return;
  dispatch_float(spec.dtype(), "irfft", [&]<class T>() {
    Tensor tmp = Tensor::empty(spec.shape(), spec.dtype(), spec.device());  // C2R overwrites its input
    for_each_index(E, device, tmp.numel(),
                   CopyHermitian<T>{static_cast<const T*>(spec.raw_data()), static_cast<T*>(tmp.raw_data()), bins, n});
    if constexpr (E == Exec::Device) {
      constexpr bool dbl = std::is_same_v<T, double>;
      with_plan(device, dbl ? CUFFT_Z2D : CUFFT_C2R, n, rows, [&](cufftHandle p) {
        if constexpr (dbl)
          HM_CUFFT_CHECK(
              cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(tmp.raw_data()), static_cast<double*>(out.raw_data())));
        else
          HM_CUFFT_CHECK(
              cufftExecC2R(p, static_cast<cufftComplex*>(tmp.raw_data()), static_cast<float*>(out.raw_data())));
      });
      scale_by<T>(E, device, out, scale);
    } else {
      cpu_fft::irfft_rows<T>(static_cast<const T*>(tmp.raw_data()), static_cast<T*>(out.raw_data()), rows, n,
                             static_cast<T>(scale));
    }
  });
}

template <Exec E>
void fft_on(const Tensor& x, int64_t n, bool inverse, double scale, const Tensor& out) {
  const int device = kernel_device(E, "fft", {&x, &out});
  const int64_t rows = n ? x.numel() / (2 * n) : 0;
  if (rows == 0) return;
  dispatch_float(x.dtype(), "fft", [&]<class T>() {
    if constexpr (E == Exec::Device) {
      constexpr bool dbl = std::is_same_v<T, double>;
      const int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
      with_plan(device, dbl ? CUFFT_Z2Z : CUFFT_C2C, n, rows, [&](cufftHandle p) {
        if constexpr (dbl)
          HM_CUFFT_CHECK(cufftExecZ2Z(p, static_cast<cufftDoubleComplex*>(x.raw_data()),
                                      static_cast<cufftDoubleComplex*>(out.raw_data()), dir));
        else
          HM_CUFFT_CHECK(cufftExecC2C(p, static_cast<cufftComplex*>(x.raw_data()),
                                      static_cast<cufftComplex*>(out.raw_data()), dir));
      });
      scale_by<T>(E, device, out, scale);
    } else {
      cpu_fft::fft_rows<T>(static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()), rows, n, inverse,
                           static_cast<T>(scale));
    }
  });
}

[[maybe_unused]] const bool bound =
    bind_cuda(rfft_kernel, rfft_on<Exec::Device>, rfft_on<Exec::Host>) &&
    bind_cuda(irfft_kernel, irfft_on<Exec::Device>, irfft_on<Exec::Host>) &&
    bind_cuda(fft_kernel, fft_on<Exec::Device>, fft_on<Exec::Host>);

}  // namespace
}  // namespace hm::cuda
