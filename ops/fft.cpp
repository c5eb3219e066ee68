// rfft, irfft, fft, ifft: argument checks, length/normalisation handling and the backward
// rules; the transforms are the fft kernel slots (ops/cpu/ on the CPU, cuFFT on CUDA).
// Each backward is itself the transform in the other direction of the output gradient:
//   rfft  (X = s R2C(x)):  dx = s C2R(g w), w = 1/2 on bins strictly between DC and Nyquist
//         (C2R counts those bins twice, once as their mirror image), 1 at DC and Nyquist;
//   irfft (x = s C2R(X)):  dX = s R2C(g) c, c = 2 between DC and Nyquist, 1 at them, and 0 for
//         the ignored imaginary parts of DC and Nyquist;
//   fft / ifft:            the other direction with the same scale (the DFT matrix is
//         symmetric, so its adjoint is its conjugate).
#include "harmonic/core/constant_cache.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/fft.h"

#include <cmath>
#include <vector>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fft_kernels.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

using autograd::NeedsGrad;
using Grads = std::vector<Tensor>;

void check_float(const Tensor& x, std::string_view fn) {
  check(x.defined(), fn, "undefined tensor");
  HM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, fn,
           "expected a float32 or float64 tensor, got {}", x.desc());
}

// A (..., n, 2) complex tensor.
void check_complex(const Tensor& x, std::string_view fn) {
  check_float(x, fn);
  HM_CHECK(x.dim() >= 2 && x.size(-1) == 2 && x.size(-2) >= 1, fn,
           "expected a complex tensor (..., n >= 1, 2) with (re, im) in the last dim, got {}", x.desc());
}

double forward_scale(FftNorm norm, int64_t n) {
  return norm == FftNorm::Backward ? 1.0 : norm == FftNorm::Forward ? 1.0 / n : 1.0 / std::sqrt(double(n));
}
double inverse_scale(FftNorm norm, int64_t n) {
  return norm == FftNorm::Forward ? 1.0 : norm == FftNorm::Backward ? 1.0 / n : 1.0 / std::sqrt(double(n));
}

Tensor contiguous_no_grad(const Tensor& x) {
  NoGradGuard no_grad;
  return x.contiguous();
}

// (n/2 + 1, 2) per-bin weights like g: `inner` on bins strictly between DC and Nyquist,
// (edge_re, edge_im) on DC and, n even, Nyquist.
Tensor bin_weights(int64_t n, double inner, double edge_re, double edge_im, const Tensor& like) {
  const int64_t bins = n / 2 + 1;
  std::vector<double> w(2 * bins, inner);
  for (int64_t k : {int64_t{0}, n % 2 == 0 ? n / 2 : int64_t{0}}) w[2 * k] = edge_re, w[2 * k + 1] = edge_im;
  return device_constant(from_vector(w, {bins, 2}).to(like.dtype()), like.device());
}

Tensor irfft_core(const Tensor& spec, int64_t n, double scale);

// x (..., n) -> (..., n/2 + 1, 2), scale * R2C.
Tensor rfft_core(const Tensor& x, double scale) {
  const int64_t n = x.size(-1);
  Tensor xc = contiguous_no_grad(x);
  Shape shape = x.shape();
  shape.back() = n / 2 + 1;
  shape.push_back(2);
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  rfft_kernel(x.device(), xc, n, scale, out);
  return autograd::record("rfft", out, {x}, [n, scale](const Tensor& g, const NeedsGrad&) {
    return Grads{irfft_core(mul(g, bin_weights(n, 0.5, 1.0, 1.0, g)), n, scale)};
  });
}

// spec (..., n/2 + 1, 2) -> (..., n), scale * C2R.
Tensor irfft_core(const Tensor& spec, int64_t n, double scale) {
  Tensor sc = contiguous_no_grad(spec);
  Shape shape = spec.shape();
  shape.pop_back();
  shape.back() = n;
  Tensor out = Tensor::empty(shape, spec.dtype(), spec.device());
  irfft_kernel(spec.device(), sc, n, scale, out);
  return autograd::record("irfft", out, {spec}, [n, scale](const Tensor& g, const NeedsGrad&) {
    return Grads{mul(rfft_core(g, scale), bin_weights(n, 2.0, 1.0, 0.0, g))};
  });
}

// x (..., n, 2) -> (..., n, 2).
Tensor fft_core(const Tensor& x, bool inverse, double scale) {
  const int64_t n = x.size(-2);
  Tensor xc = contiguous_no_grad(x);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  fft_kernel(x.device(), xc, n, inverse, scale, out);
  return autograd::record(inverse ? "ifft" : "fft", out, {x}, [inverse, scale](const Tensor& g, const NeedsGrad&) {
    return Grads{fft_core(g, !inverse, scale)};
  });
}

}  // namespace

FftNorm parse_fft_norm(std::string_view name, std::string_view fn) {
  if (name == "backward") return FftNorm::Backward;
  if (name == "forward") return FftNorm::Forward;
  if (name == "ortho") return FftNorm::Ortho;
  throw_error(fn, fmt::format("norm must be \"backward\", \"forward\" or \"ortho\", got \"{}\"", name));
}

Tensor rfft(const Tensor& x, std::optional<int64_t> n_opt, FftNorm norm) {
  check_float(x, "rfft");
  HM_CHECK(x.dim() >= 1, "rfft", "expected a signal (..., L), got {}", x.desc());
  const int64_t L = x.size(-1), n = n_opt.value_or(L);
  HM_CHECK(n >= 1, "rfft", "transform length n must be >= 1, got n = {} for {}", n, x.desc());
  Tensor xs = n < L ? narrow(x, -1, 0, n) : n > L ? pad(x, {0, n - L}) : x;
  return rfft_core(xs, forward_scale(norm, n));
}

Tensor irfft(const Tensor& spec, std::optional<int64_t> n_opt, FftNorm norm) {
  check_complex(spec, "irfft");
  const int64_t m = spec.size(-2), n = n_opt.value_or(2 * (m - 1));
  HM_CHECK(n >= 1, "irfft", "output length n must be >= 1, got n = {} for {}", n, spec.desc());
  const int64_t bins = n / 2 + 1;
  Tensor s = m > bins ? narrow(spec, -2, 0, bins) : m < bins ? pad(spec, {0, 0, 0, bins - m}) : spec;
  return irfft_core(s, n, inverse_scale(norm, n));
}

Tensor fft(const Tensor& x, FftNorm norm) {
  check_complex(x, "fft");
  return fft_core(x, false, forward_scale(norm, x.size(-2)));
}

Tensor ifft(const Tensor& x, FftNorm norm) {
  check_complex(x, "ifft");
  return fft_core(x, true, inverse_scale(norm, x.size(-2)));
}

}  // namespace hm
