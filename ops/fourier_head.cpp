// Fourier head ops (ops/fourier_head.h).
//
// Forward of fourier_head_log_pmf, per row of coeffs x (K = 2N+2):
//   [R | I] at the bins (2m), R_j = sum_l alpha_l cos(pi l b_j) + beta_l sin(pi l b_j), I likewise
//   q_j = R_j^2 + I_j^2,  Q = sum_j q_j,  y_j = q_j / Q,  out_j = log(y_j + 1e-5).
// The GEMM uses the symmetry b_{m-1-j} = -b_j: cos is even and sin odd, so the products of
// alpha and beta with the cos/sin table of the first h = ceil(m/2) centres give both halves.
// Viewing x (rows, 2N+2) as (2 rows, N+1), one GEMM against the (N+1, 2h) table [C | S] gives
// z (rows, 4h) = [alpha.C | alpha.S | beta.C | beta.S]: half the flops of a full (K, 2m) table.
// The paper's p_j = q_j / (2 |a|^2) carries the denominator 2 (|alpha|^2 + |beta|^2), but it is
// the same for every bin of a row and cancels in y = p / sum p, so it contributes nothing to
// the value or the gradient; the kernel normalises q directly (all-zero coefficients give NaN).
// Backward, with g = dL/dout:
//   dL/dy_j = h_j = g_j / (y_j + 1e-5)
//   dL/dq_j = (h_j - sum_k h_k y_k) / Q                (through the normalisation)
//   dL/dR_j = 2 R_j dL/dq_j,  dL/dI_j = 2 I_j dL/dq_j   (folded into dL/dz, ops/cpu/fourier_head.cpp)
//   dL/dx   = dL/dz [C | S]^T                           (one GEMM)
#include "harmonic/ops/fourier_head.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <tuple>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/autograd/node.h"
#include "harmonic/core/checked_math.h"
#include "harmonic/core/constant_cache.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_head_kernels.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/shape_ops.h"

namespace hm {
namespace {

using Grads = std::vector<Tensor>;
constexpr double kPi = std::numbers::pi;

// Float32/float64 only, last dim even and >= 2; names the function on failure. Returns N.
int64_t check_coeffs(const Tensor& coeffs, std::string_view fn) {
  check(coeffs.defined(), fn, "undefined coeffs");
  HM_CHECK(coeffs.dtype() == DType::Float32 || coeffs.dtype() == DType::Float64, fn,
           "coeffs must be float32 or float64, got {}; the Fourier head is unstable in reduced precision, "
           "upcast its input with .to(DType::Float32)",
           coeffs.desc());
  HM_CHECK(coeffs.dim() >= 1 && coeffs.size(-1) >= 2 && coeffs.size(-1) % 2 == 0, fn,
           "coeffs must be (..., 2(N+1)) with an even last dim >= 2, got {}", coeffs.desc());
  return coeffs.size(-1) / 2 - 1;
}

// The (N+1, 2h) table [C | S], C[l][j] = cos(pi l b_j), S[l][j] = sin(pi l b_j) for the first
// h = ceil(m/2) centres. The angle pi l (2j+1-m)/m is reduced exactly in integers modulo 2 pi
// first, so large l m loses no accuracy. Cached per (N, m, dtype, device).
Tensor bin_table(int64_t n_freq, int64_t m, DType dtype, Device device) {
  static std::mutex mutex;
  static std::map<std::tuple<int64_t, int64_t, DType, std::string>, Tensor> cache;
  auto key = std::make_tuple(n_freq, m, dtype, device.str());
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const int64_t h = (m + 1) / 2;  // m < 2^62 (fourier_head_log_pmf checks 4h)
  // a Tensor, not a std::vector: an impossible m gives an hm::Error naming the size, not bad_alloc
  Tensor host = Tensor::empty({n_freq + 1, 2 * h}, DType::Float64, Device::cpu());
  double* t = host.data<double>();
  for (int64_t l = 0; l <= n_freq; ++l)
    for (int64_t j = 0; j < h; ++j) {
      int64_t num = (l * (2 * j + 1 - m)) % (2 * m);  // angle = pi num / m
      double angle = kPi * static_cast<double>(num) / static_cast<double>(m);
      t[l * 2 * h + j] = std::cos(angle);
      t[l * 2 * h + h + j] = std::sin(angle);
    }
  Tensor table = host.to(dtype).to(device);
  cache.emplace(key, table);
  return table;
}

// c (rows, n) = a (rows, k) b (k, n), or a b^T with b (n, k) when trans_b. All contiguous.
void gemm(const Tensor& a, const Tensor& b, bool trans_b, const Tensor& c) {
  GemmDesc d;
  d.dtype = a.dtype();
  d.m = c.size(0), d.n = c.size(1), d.k = a.size(1);
  if (d.m == 0 || d.n == 0) return;
  d.a = a.raw_data(), d.lda = a.size(1);
  d.b = b.raw_data(), d.ldb = b.size(1), d.trans_b = trans_b;
  d.c = c.raw_data(), d.ldc = c.size(1);
  gemm_kernel(a.device(), d);
}

// The regulariser's factor: gamma 2 pi^2 / m (paper) or gamma 4 pi^2 (the authors' code).
double regularizer_scale(double gamma, int64_t bins, bool code_scaling) {
  return code_scaling ? gamma * 4.0 * kPi * kPi : gamma * 2.0 * kPi * kPi / static_cast<double>(bins);
}

// (..., K) -> contiguous (rows, K) without taping.
Tensor as_rows(const Tensor& x) {
  NoGradGuard guard;
  Tensor c = x.contiguous();
  return Tensor::view_of(c.storage(), {x.numel() / x.size(-1), x.size(-1)}, {x.size(-1), 1}, c.offset(), c.dtype());
}

}  // namespace

Tensor fourier_bin_centres(int64_t bins) {
  check(bins >= 1, "fourier_bin_centres", "bins must be >= 1, got {}", bins);
  Tensor centres = Tensor::empty({bins}, DType::Float64, Device::cpu());  // hm::Error when too large
  double* b = centres.data<double>();
  for (int64_t j = 0; j < bins; ++j) b[j] = -1.0 + (2.0 * static_cast<double>(j) + 1.0) / static_cast<double>(bins);
  return centres;
}

Tensor fourier_head_log_pmf(const Tensor& coeffs_arg, int64_t bins) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  const int64_t n_freq = check_coeffs(coeffs, "fourier_head_log_pmf");
  HM_CHECK(bins >= 1, "fourier_head_log_pmf", "bins must be >= 1, got {} (coeffs {})", bins, coeffs.desc());
  const int64_t k = coeffs.size(-1), h = checked_add(bins, 1, "fourier_head_log_pmf") / 2;
  checked_mul(4, h, "fourier_head_log_pmf");  // the (rows, 4h) buffer's row length
  Tensor x = as_rows(coeffs);                 // (rows, K)
  const int64_t rows = x.size(0);
  Tensor x2 = Tensor::view_of(x.storage(), {2 * rows, n_freq + 1}, {n_freq + 1, 1}, x.offset(), x.dtype());
  Tensor table = bin_table(n_freq, bins, coeffs.dtype(), coeffs.device());       // (N+1, 2h)
  Tensor z = Tensor::empty({2 * rows, 2 * h}, coeffs.dtype(), coeffs.device());  // (rows, 4h) as (2 rows, 2h)
  gemm(x2, table, false, z);
  Shape out_shape = coeffs.shape();
  out_shape.back() = bins;
  Tensor out = Tensor::empty(out_shape, coeffs.dtype(), coeffs.device());  // (..., m)
  if (rows > 0)
    fourier_log_pmf_kernel(coeffs.device(), Tensor::view_of(z.storage(), {rows, 4 * h}, {4 * h, 1}, 0, z.dtype()), out);
  bool rec = autograd::will_record({coeffs});
  return autograd::record(
      "fourier_head_log_pmf", out, {coeffs},
      [sz = rec ? autograd::Saved(z) : autograd::Saved(), table = rec ? table : Tensor(), shape = coeffs.shape(), k, h](
          const Tensor& g, const autograd::NeedsGrad&) {
        const Tensor& zv = sz.get();  // (2 rows, 2h)
        const int64_t rows = zv.size(0) / 2;
        Tensor gc = g.contiguous();
        Tensor gz = Tensor::empty({2 * rows, 2 * h}, zv.dtype(), zv.device());
        auto as_wide = [&](const Tensor& t) {  // (2 rows, 2h) -> (rows, 4h)
          return Tensor::view_of(t.storage(), {rows, 4 * h}, {4 * h, 1}, t.offset(), t.dtype());
        };
        if (rows > 0) fourier_log_pmf_backward_kernel(zv.device(), as_wide(zv), gc, as_wide(gz));
        Tensor gx = Tensor::empty({2 * rows, k / 2}, zv.dtype(), zv.device());  // (rows, K) as (2 rows, N+1)
        gemm(gz, table, true, gx);
        return Grads{reshape(gx, shape)};
      });
}

namespace {

// points (P) shared by every row, or (..., P) with the leading dims of coeffs (..., K).
void check_points(const Tensor& coeffs, const Tensor& points, std::string_view fn) {
  HM_CHECK(points.defined() && points.dtype() == coeffs.dtype(), fn, "points must have the dtype of coeffs {}, got {}",
           coeffs.desc(), points.desc());
  HM_CHECK(points.device() == coeffs.device(), fn, "points must be on the device of coeffs {}, got {}", coeffs.desc(),
           points.desc());
  bool shared = points.dim() == 1;
  bool per_row = points.dim() == coeffs.dim() && points.dim() >= 1 &&
                 std::equal(points.shape().begin(), points.shape().end() - 1, coeffs.shape().begin());
  HM_CHECK(shared || per_row, fn, "points must be (P) or (..., P) with the leading dims of coeffs {}, got {}",
           coeffs.desc(), points.desc());
}

// R, I (..., P) of A(z) at points: coeffs (..., K), points (P) or (..., P). Composed ops.
std::pair<Tensor, Tensor> eval_series(const Tensor& coeffs, const Tensor& points, std::string_view fn) {
  const int64_t n_freq = check_coeffs(coeffs, fn);
  check_points(coeffs, points, fn);
  Tensor freqs = mul(arange(0.0, static_cast<double>(n_freq + 1), 1.0, {.dtype = coeffs.dtype()}), kPi);
  Tensor angles = mul(unsqueeze(points, -1), device_constant(freqs, coeffs.device()));  // (..., P, N+1)
  Tensor c = cos(angles), s = sin(angles);
  Tensor alpha = unsqueeze(narrow(coeffs, -1, 0, n_freq + 1), -2);          // (..., 1, N+1)
  Tensor beta = unsqueeze(narrow(coeffs, -1, n_freq + 1, n_freq + 1), -2);  // (..., 1, N+1)
  Tensor re = sum(add(mul(alpha, c), mul(beta, s)), {-1});                  // (..., P)
  Tensor im = sum(sub(mul(beta, c), mul(alpha, s)), {-1});                  // (..., P)
  return {re, im};
}

}  // namespace

Tensor fourier_pdf(const Tensor& coeffs_arg, const Tensor& points) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  auto [re, im] = eval_series(coeffs, points, "fourier_pdf");
  Tensor norm2 = sum(square(coeffs), {-1}, true);  // (..., 1) = sum_l |a_l|^2
  return div(add(square(re), square(im)), mul(norm2, 2.0));
}

std::pair<Tensor, Tensor> fourier_autocorrelation(const Tensor& coeffs_arg) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  const int64_t n_freq = check_coeffs(coeffs, "fourier_autocorrelation");
  Tensor alpha = narrow(coeffs, -1, 0, n_freq + 1), beta = narrow(coeffs, -1, n_freq + 1, n_freq + 1);
  std::vector<Tensor> re, im;
  for (int64_t k = 0; k <= n_freq; ++k) {
    const int64_t len = n_freq + 1 - k;
    Tensor al = narrow(alpha, -1, 0, len), bl = narrow(beta, -1, 0, len);  // a_l
    Tensor ak = narrow(alpha, -1, k, len), bk = narrow(beta, -1, k, len);  // a_{l+k}
    // (al + i bl)(ak - i bk) = al ak + bl bk + i (bl ak - al bk)
    re.push_back(sum(add(mul(al, ak), mul(bl, bk)), {-1}, true));
    im.push_back(sum(sub(mul(bl, ak), mul(al, bk)), {-1}, true));
  }
  return {cat(re, -1), cat(im, -1)};
}

Tensor fourier_cdf(const Tensor& coeffs_arg, const Tensor& points) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  const int64_t n_freq = check_coeffs(coeffs, "fourier_cdf");
  check_points(coeffs, points, "fourier_cdf");
  Tensor base = mul(add(points, 1.0), 0.5);  // (x + 1) / 2
  if (n_freq == 0) return add(base, mul(sum(coeffs, {-1}, true), 0.0));
  auto [cre, cim] = fourier_autocorrelation(coeffs);
  Tensor c0 = narrow(cre, -1, 0, 1);                              // (..., 1)
  Tensor u = unsqueeze(div(narrow(cre, -1, 1, n_freq), c0), -2);  // (..., 1, N)
  Tensor v = unsqueeze(div(narrow(cim, -1, 1, n_freq), c0), -2);  // (..., 1, N)
  std::vector<double> kk(static_cast<size_t>(n_freq)), sign(static_cast<size_t>(n_freq));
  for (int64_t k = 1; k <= n_freq; ++k) kk[k - 1] = kPi * static_cast<double>(k), sign[k - 1] = k % 2 ? -1.0 : 1.0;
  Tensor pik = device_constant(from_vector(kk, {n_freq}).to(coeffs.dtype()), coeffs.device());    // pi k
  Tensor alt = device_constant(from_vector(sign, {n_freq}).to(coeffs.dtype()), coeffs.device());  // (-1)^k
  Tensor angles = mul(unsqueeze(points, -1), pik);                                  // (..., P, N)
  // Re((u + i v)(cos + i sin - (-1)^k) / (i pi k)) = (u sin + v (cos - (-1)^k)) / (pi k)
  Tensor terms = div(add(mul(u, sin(angles)), mul(v, sub(cos(angles), alt))), pik);
  return add(base, sum(terms, {-1}));
}

Tensor detail::fourier_regularizer_composed(const Tensor& coeffs, double gamma, int64_t bins, bool code_scaling) {
  const int64_t n_freq = check_coeffs(coeffs, "fourier_regularizer");
  HM_CHECK(bins >= 1, "fourier_regularizer", "bins must be >= 1, got {} (coeffs {})", bins, coeffs.desc());
  if (n_freq == 0) return mul(sum(coeffs), 0.0);
  auto [cre, cim] = fourier_autocorrelation(coeffs);
  Tensor mag2 = add(square(narrow(cre, -1, 1, n_freq)), square(narrow(cim, -1, 1, n_freq)));  // (..., N)
  std::vector<double> k2(static_cast<size_t>(n_freq));
  for (int64_t k = 1; k <= n_freq; ++k) k2[k - 1] = static_cast<double>(k * k);
  Tensor weights = device_constant(from_vector(k2, {n_freq}).to(coeffs.dtype()), coeffs.device());
  Tensor per_row = sum(mul(mag2, weights), {-1});  // (...)
  return mul(mean(per_row), regularizer_scale(gamma, bins, code_scaling));
}

Tensor fourier_regularizer(const Tensor& coeffs_arg, double gamma, int64_t bins, bool code_scaling) {
  const Tensor coeffs = autocast_widen(coeffs_arg);  // bfloat16 under autocast: computed in float32
  check_coeffs(coeffs, "fourier_regularizer");
  HM_CHECK(bins >= 1, "fourier_regularizer", "bins must be >= 1, got {} (coeffs {})", bins, coeffs.desc());
  const bool fused = coeffs.device().is_cpu() ? fourier_regularizer_kernel.cpu : fourier_regularizer_kernel.cuda;
  if (!fused || coeffs.numel() == 0) return detail::fourier_regularizer_composed(coeffs, gamma, bins, code_scaling);
  const double scale = regularizer_scale(gamma, bins, code_scaling);
  Tensor x = as_rows(coeffs);                                               // (rows, K)
  Tensor corr = Tensor::empty(x.shape(), DType::Float64, coeffs.device());  // [Re c | Im c] per row, for the backward
  Tensor out = Tensor::empty({}, coeffs.dtype(), coeffs.device());
  fourier_regularizer_kernel(coeffs.device(), x, scale, corr, out);
  if (!autograd::will_record({coeffs})) return out;
  return autograd::record(
      "fourier_regularizer", out, {coeffs},
      [sx = autograd::Saved(x), corr, shape = coeffs.shape(), scale](const Tensor& g, const autograd::NeedsGrad&) {
        const Tensor& xv = sx.get();
        Tensor gx = Tensor::empty(xv.shape(), xv.dtype(), xv.device());
        fourier_regularizer_backward_kernel(xv.device(), xv, corr, g.contiguous(), scale, gx);
        return Grads{reshape(gx, shape)};
      });
}

}  // namespace hm
