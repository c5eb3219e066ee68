#include "ops/dft.h"

#include <cmath>
#include <cstdint>

namespace hm {

namespace {

using cd = std::complex<double>;

bool is_power_of_two(size_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Unnormalised radix-2 FFT, sign -1 (forward) or +1.
void fft_pow2(std::vector<cd>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  // Twiddles exp(sign 2 pi i k / n) from their angles directly (not by repeated
  // multiplication), so the error stays at rounding level for long transforms; stage `len`
  // uses every (n / len)-th one.
  std::vector<cd> w(n / 2);
  for (size_t k = 0; k < n / 2; ++k) w[k] = std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n));
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = n / len;
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        // The product written out: std::complex's operator* checks for NaN/inf on every call.
        const cd b = a[i + k + len / 2], t = w[k * step];
        cd u = a[i + k], v(b.real() * t.real() - b.imag() * t.imag(), b.real() * t.imag() + b.imag() * t.real());
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
  }
}

// Bluestein: with c_j = exp(sign i pi j^2 / m), jk = (j^2 + k^2 - (k-j)^2) / 2 gives
// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), the
// sum a linear convolution done by zero-padded power-of-two FFTs.
void bluestein(std::vector<cd>& x, int sign) {
  const size_t m = x.size();
  size_t n = 1;
  while (n < 2 * m - 1) n <<= 1;
  std::vector<cd> chirp(m);
  for (size_t j = 0; j < m; ++j) {
    // j^2 mod 2m keeps the angle small (exact in integers) for long inputs.
    uint64_t jj = (static_cast<uint64_t>(j) * j) % (2 * m);
    chirp[j] = std::polar(1.0, sign * M_PI * static_cast<double>(jj) / static_cast<double>(m));
  }
  std::vector<cd> a(n), b(n);
  for (size_t j = 0; j < m; ++j) a[j] = x[j] * chirp[j];
  b[0] = std::conj(chirp[0]);
  for (size_t j = 1; j < m; ++j) b[j] = b[n - j] = std::conj(chirp[j]);
  fft_pow2(a, -1);
  fft_pow2(b, -1);
  for (size_t i = 0; i < n; ++i) a[i] *= b[i];
  fft_pow2(a, +1);
  for (size_t k = 0; k < m; ++k) x[k] = a[k] * chirp[k] / static_cast<double>(n);
}

}  // namespace

void dft_inplace(std::vector<std::complex<double>>& x, bool inverse) {
  if (x.size() <= 1) return;
  const int sign = inverse ? +1 : -1;
  if (is_power_of_two(x.size()))
    fft_pow2(x, sign);
  else
    bluestein(x, sign);
  if (inverse)
    for (auto& v : x) v /= static_cast<double>(x.size());
}

}  // namespace hm
