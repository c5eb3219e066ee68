// Complex FFT plans (ops/cpu/fft_plan.h): the Stockham stages with their butterflies,
// Bluestein's chirp-z for lengths with a prime factor above kMaxRadix, and the plan cache.
//
// Bluestein's convolution runs on a 5-smooth length (2^a 3^b 5^c >= 2n - 1) rather than the
// next power of two: the same radix-2/3/4/5 stages, up to half the work.
//
// Stockham, decimation in frequency: with n_cur = p m, input index j + k m (j < m, k < p) and
// output index t + p u, X_{t + p u} = sum_j w_m^{j u} [w_{n_cur}^{j t} sum_k x_{j + k m} w_p^{k t}],
// so one stage does m * s radix-p butterflies, multiplies by w_{n_cur}^{j t} and leaves p
// sub-problems of length m interleaved at stride s p. Data ping-pong between the caller's
// arrays and the work buffer; the inner loop runs over the s contiguous sub-problems (or
// over j while s is small), so it vectorises on split real/imaginary arrays.
#include "ops/cpu/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <utility>

#include "core/error.h"

namespace hm::cpu_fft {
namespace {

// Radices for n (8s first, then 4, 2, 3, 5, 7, 11, 13), or empty when a larger prime divides n.
std::vector<int> radices_of(int64_t n) {
  std::vector<int> r;
  while (n % 8 == 0) r.push_back(8), n /= 8;
  while (n % 4 == 0) r.push_back(4), n /= 4;
  while (n % 2 == 0) r.push_back(2), n /= 2;
  for (int p = 3; p <= kMaxRadix; p += 2)
    while (n % p == 0) r.push_back(p), n /= p;
  if (n != 1) r.clear();
  return r;
}

// The smallest 2^a 3^b 5^c >= n: Bluestein's convolution length. Up to 2x shorter than the next
// power of two (4099 -> 8640 instead of 16384) and still all radix-2/3/4/5 stages.
int64_t smooth_length(int64_t n) {
  int64_t best = 1;
  while (best < n) best <<= 1;
  for (int64_t p5 = 1; p5 < best; p5 *= 5)
    for (int64_t p35 = p5; p35 < best; p35 *= 3) {
      int64_t m = p35;
      while (m < n) m <<= 1;
      best = std::min(best, m);
    }
  return best;
}

// exp(-2 pi i k / n) with k reduced modulo n in integers, evaluated in double.
std::pair<double, double> root(int64_t k, int64_t n) {
  const double a = -2.0 * std::numbers::pi * static_cast<double>(k % n) / static_cast<double>(n);
  return {std::cos(a), std::sin(a)};
}

// A radix-p DFT of (ar, ai)[0..p) in place, sign -1. P = 0: generic p with roots w_p^k in rr, ri.
template <class T, int P>
inline void butterfly(T* ar, T* ai, int p, const T* rr, const T* ri) {
  if constexpr (P == 2) {
    const T r0 = ar[0], i0 = ai[0];
    ar[0] = r0 + ar[1], ai[0] = i0 + ai[1];
    ar[1] = r0 - ar[1], ai[1] = i0 - ai[1];
  } else if constexpr (P == 4) {
    const T t0r = ar[0] + ar[2], t0i = ai[0] + ai[2], t1r = ar[0] - ar[2], t1i = ai[0] - ai[2];
    const T t2r = ar[1] + ar[3], t2i = ai[1] + ai[3], t3r = ar[1] - ar[3], t3i = ai[1] - ai[3];
    ar[0] = t0r + t2r, ai[0] = t0i + t2i;
    ar[2] = t0r - t2r, ai[2] = t0i - t2i;
    ar[1] = t1r + t3i, ai[1] = t1i - t3r;       // t1 - i t3
    ar[3] = t1r - t3i, ai[3] = t1i + t3r;       // t1 + i t3
  } else if constexpr (P == 8) {                // two radix-4 halves, the odd one twiddled by w_8^t
    constexpr T h = T(0.70710678118654752440);  // 1 / sqrt(2)
    T er[4] = {ar[0], ar[2], ar[4], ar[6]}, ei[4] = {ai[0], ai[2], ai[4], ai[6]};
    T orr[4] = {ar[1], ar[3], ar[5], ar[7]}, oi[4] = {ai[1], ai[3], ai[5], ai[7]};
    butterfly<T, 4>(er, ei, 4, rr, ri);
    butterfly<T, 4>(orr, oi, 4, rr, ri);
    T x = orr[1], y = oi[1];
    orr[1] = h * (x + y), oi[1] = h * (y - x);  // (1 - i) / sqrt 2
    x = orr[2], y = oi[2];
    orr[2] = y, oi[2] = -x;  // -i
    x = orr[3], y = oi[3];
    orr[3] = h * (y - x), oi[3] = -h * (x + y);  // (-1 - i) / sqrt 2
    for (int t = 0; t < 4; ++t) {
      ar[t] = er[t] + orr[t], ai[t] = ei[t] + oi[t];
      ar[t + 4] = er[t] - orr[t], ai[t + 4] = ei[t] - oi[t];
    }
  } else if constexpr (P == 3) {
    constexpr T s = T(0.86602540378443864676);  // sin(2 pi / 3)
    const T t1r = ar[1] + ar[2], t1i = ai[1] + ai[2], t2r = ar[1] - ar[2], t2i = ai[1] - ai[2];
    const T mr = ar[0] - T(0.5) * t1r, mi = ai[0] - T(0.5) * t1i;
    ar[0] += t1r, ai[0] += t1i;
    ar[1] = mr + s * t2i, ai[1] = mi - s * t2r;
    ar[2] = mr - s * t2i, ai[2] = mi + s * t2r;
  } else if constexpr (P == 5) {
    constexpr T c1 = T(0.30901699437494742410), c2 = T(-0.80901699437494742410);  // cos(2 pi k / 5)
    constexpr T s1 = T(0.95105651629515357212), s2 = T(0.58778525229247312917);   // sin(2 pi k / 5)
    const T t1r = ar[1] + ar[4], t1i = ai[1] + ai[4], t2r = ar[2] + ar[3], t2i = ai[2] + ai[3];
    const T t3r = ar[1] - ar[4], t3i = ai[1] - ai[4], t4r = ar[2] - ar[3], t4i = ai[2] - ai[3];
    const T b1r = ar[0] + c1 * t1r + c2 * t2r, b1i = ai[0] + c1 * t1i + c2 * t2i;
    const T b2r = ar[0] + c2 * t1r + c1 * t2r, b2i = ai[0] + c2 * t1i + c1 * t2i;
    const T u1r = s1 * t3r + s2 * t4r, u1i = s1 * t3i + s2 * t4i;  // b1 = base1 - i u1, b4 = base1 + i u1
    const T u2r = s2 * t3r - s1 * t4r, u2i = s2 * t3i - s1 * t4i;  // b2 = base2 - i u2, b3 = base2 + i u2
    ar[0] += t1r + t2r, ai[0] += t1i + t2i;
    ar[1] = b1r + u1i, ai[1] = b1i - u1r;
    ar[4] = b1r - u1i, ai[4] = b1i + u1r;
    ar[2] = b2r + u2i, ai[2] = b2i - u2r;
    ar[3] = b2r - u2i, ai[3] = b2i + u2r;
  } else {
    T br[kMaxRadix], bi[kMaxRadix];
    for (int t = 0; t < p; ++t) {
      T sr = 0, si = 0;
      for (int k = 0, kt = 0; k < p; ++k, kt = (kt + t) % p) {
        sr += ar[k] * rr[kt] - ai[k] * ri[kt];
        si += ar[k] * ri[kt] + ai[k] * rr[kt];
      }
      br[t] = sr, bi[t] = si;
    }
    for (int t = 0; t < p; ++t) ar[t] = br[t], ai[t] = bi[t];
  }
}

// One Stockham stage x -> y (both n_cur * s = n long): radix P (0 = generic p).
template <class T, int P>
void run_stage(const T* xr, const T* xi, T* yr, T* yi, int p_rt, int64_t m, int64_t s, const T* wr, const T* wi,
               const T* rr, const T* ri) {
  constexpr int kArr = P ? P : kMaxRadix;
  const int p = P ? P : p_rt;
  auto body = [&](int64_t j, int64_t q, const T* twr, const T* twi) {
    T ar[kArr], ai[kArr];
    for (int k = 0; k < p; ++k) ar[k] = xr[q + s * (j + k * m)], ai[k] = xi[q + s * (j + k * m)];
    butterfly<T, P>(ar, ai, p, rr, ri);
    const int64_t o = q + s * p * j;
    yr[o] = ar[0], yi[o] = ai[0];
    for (int t = 1; t < p; ++t)
      yr[o + s * t] = ar[t] * twr[t - 1] - ai[t] * twi[t - 1], yi[o + s * t] = ar[t] * twi[t - 1] + ai[t] * twr[t - 1];
  };
  if (s >= 4) {
    for (int64_t j = 0; j < m; ++j) {
      const T *twr = wr + j * (p - 1), *twi = wi + j * (p - 1);
#pragma omp simd
      for (int64_t q = 0; q < s; ++q) body(j, q, twr, twi);
    }
  } else {
    for (int64_t q = 0; q < s; ++q)
#pragma omp simd
      for (int64_t j = 0; j < m; ++j) body(j, q, wr + j * (p - 1), wi + j * (p - 1));
  }
}

}  // namespace

template <class T>
ComplexPlan<T>::ComplexPlan(int64_t n) : n_(n) {
  check(n >= 1, "fft", "transform length must be >= 1, got {}", n);
  const std::vector<int> radices = radices_of(n);
  if (radices.empty() && n > 1) {  // Bluestein through a 5-smooth length >= 2n - 1
    m_ = smooth_length(2 * n - 1);
    inner_ = plan<T>(m_);
    chirp_re_.resize(n), chirp_im_.resize(n);
    std::vector<double> br(m_, 0.0), bi(m_, 0.0);  // conj chirp, wrapped: b_j = b_{m-j}
    for (int64_t j = 0; j < n; ++j) {
      // exp(-i pi j^2 / n) = root(j^2 mod 2n, 2n): j^2 reduced exactly in integers.
      const auto [c, s] = root(static_cast<int64_t>((static_cast<uint64_t>(j) * j) % (2 * n)), 2 * n);
      chirp_re_[j] = static_cast<T>(c), chirp_im_[j] = static_cast<T>(s);
      br[j] = c, bi[j] = -s;
      if (j) br[m_ - j] = c, bi[m_ - j] = -s;
    }
    // The kernel's transform in double for either T (and /m, the inverse's normalisation).
    const auto dplan = plan<double>(m_);
    std::vector<double> w(dplan->work_size());
    dplan->forward(br.data(), bi.data(), w.data());
    kernel_re_.resize(m_), kernel_im_.resize(m_);
    for (int64_t k = 0; k < m_; ++k)
      kernel_re_[k] = static_cast<T>(br[k] / m_), kernel_im_[k] = static_cast<T>(bi[k] / m_);
    work_ = 2 * m_ + inner_->work_size();
    return;
  }
  int64_t n_cur = n, s = 1;
  for (int p : radices) {
    Stage st{p, n_cur / p, s, {}, {}};
    st.wr.resize(st.m * (p - 1)), st.wi.resize(st.m * (p - 1));
    for (int64_t j = 0; j < st.m; ++j)
      for (int t = 1; t < p; ++t) {
        const auto [c, si] = root(j * t, n_cur);
        st.wr[j * (p - 1) + t - 1] = static_cast<T>(c), st.wi[j * (p - 1) + t - 1] = static_cast<T>(si);
      }
    root_off_.push_back(static_cast<int64_t>(root_re_.size()));
    if (p == 7 || p > 8)
      for (int k = 0; k < p; ++k) {
        const auto [c, si] = root(k, p);
        root_re_.push_back(static_cast<T>(c)), root_im_.push_back(static_cast<T>(si));
      }
    stages_.push_back(std::move(st));
    n_cur /= p, s *= p;
  }
  work_ = 2 * n;
}

template <class T>
void ComplexPlan<T>::stockham(T* re, T* im, T* work) const {
  T *xr = re, *xi = im, *yr = work, *yi = work + n_;
  for (size_t k = 0; k < stages_.size(); ++k) {
    const Stage& st = stages_[k];
    const T *wr = st.wr.data(), *wi = st.wi.data();
    const T *rr = root_re_.data() + root_off_[k], *ri = root_im_.data() + root_off_[k];
    switch (st.p) {
      case 2:
        run_stage<T, 2>(xr, xi, yr, yi, 2, st.m, st.s, wr, wi, rr, ri);
        break;
      case 3:
        run_stage<T, 3>(xr, xi, yr, yi, 3, st.m, st.s, wr, wi, rr, ri);
        break;
      case 4:
        run_stage<T, 4>(xr, xi, yr, yi, 4, st.m, st.s, wr, wi, rr, ri);
        break;
      case 5:
        run_stage<T, 5>(xr, xi, yr, yi, 5, st.m, st.s, wr, wi, rr, ri);
        break;
      case 8:
        run_stage<T, 8>(xr, xi, yr, yi, 8, st.m, st.s, wr, wi, rr, ri);
        break;
      default:
        run_stage<T, 0>(xr, xi, yr, yi, st.p, st.m, st.s, wr, wi, rr, ri);
    }
    std::swap(xr, yr), std::swap(xi, yi);
  }
  if (xr != re)
    for (int64_t i = 0; i < n_; ++i) re[i] = xr[i], im[i] = xi[i];
}

// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}) with c_j = exp(-i pi j^2 / n) (jk = (j^2 + k^2 -
// (k-j)^2) / 2): a circular convolution of length m_ >= 2n - 1 by two inner transforms.
template <class T>
void ComplexPlan<T>::bluestein(T* re, T* im, T* work) const {
  T *ar = work, *ai = work + m_, *w2 = work + 2 * m_;
  const T *cr = chirp_re_.data(), *ci = chirp_im_.data(), *kr = kernel_re_.data(), *ki = kernel_im_.data();
#pragma omp simd
  for (int64_t j = 0; j < n_; ++j) ar[j] = re[j] * cr[j] - im[j] * ci[j], ai[j] = re[j] * ci[j] + im[j] * cr[j];
  for (int64_t j = n_; j < m_; ++j) ar[j] = 0, ai[j] = 0;
  inner_->forward(ar, ai, w2);
#pragma omp simd
  for (int64_t k = 0; k < m_; ++k) {  // times the kernel, conjugated for the inverse by conj(F(conj))
    const T r = ar[k] * kr[k] - ai[k] * ki[k], i = ar[k] * ki[k] + ai[k] * kr[k];
    ar[k] = r, ai[k] = -i;
  }
  inner_->forward(ar, ai, w2);
#pragma omp simd
  for (int64_t k = 0; k < n_; ++k) {  // conj(a_k) c_k
    const T r = ar[k], i = -ai[k];
    re[k] = r * cr[k] - i * ci[k], im[k] = r * ci[k] + i * cr[k];
  }
}

template <class T>
void ComplexPlan<T>::forward(T* re, T* im, T* work) const {
  if (inner_)
    bluestein(re, im, work);
  else
    stockham(re, im, work);
}

template <class T>
void ComplexPlan<T>::inverse(T* re, T* im, T* work) const {
#pragma omp simd
  for (int64_t i = 0; i < n_; ++i) im[i] = -im[i];
  forward(re, im, work);
#pragma omp simd
  for (int64_t i = 0; i < n_; ++i) im[i] = -im[i];
}

namespace {

// One cache per plan type. Plans are built outside the lock (a Bluestein plan asks the cache
// for its inner plan); when two threads race, the first insertion wins.
template <class Plan>
std::shared_ptr<const Plan> cached(int64_t n) {
  static std::mutex mutex;
  static std::map<int64_t, std::shared_ptr<const Plan>> plans;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = plans.find(n); it != plans.end()) return it->second;
  }
  auto built = std::make_shared<const Plan>(n);
  std::lock_guard<std::mutex> lock(mutex);
  return plans.emplace(n, std::move(built)).first->second;
}

}  // namespace

template <class T>
std::shared_ptr<const ComplexPlan<T>> plan(int64_t n) {
  return cached<ComplexPlan<T>>(n);
}
template <class T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n) {
  return cached<RealPlan<T>>(n);
}

template class ComplexPlan<float>;
template class ComplexPlan<double>;
template std::shared_ptr<const ComplexPlan<float>> plan<float>(int64_t);
template std::shared_ptr<const ComplexPlan<double>> plan<double>(int64_t);
template std::shared_ptr<const RealPlan<float>> real_plan<float>(int64_t);
template std::shared_ptr<const RealPlan<double>> real_plan<double>(int64_t);

}  // namespace hm::cpu_fft
