// Complex FFT plans (ops/cpu/fft_plan.h): the Stockham stages with their butterflies,
// Bluestein's chirp-z for lengths with a prime factor above kMaxRadix, and the plan cache.
//
// Bluestein's convolution runs on a 5-smooth length (2^a 3^b 5^c >= 2n - 1) rather than the
// next power of two: the same radix-2/3/4/5 stages, up to half the work.
//
// The Stockham stages (ops/cpu/fft_butterfly.h) ping-pong between the caller's arrays and the
// work buffer. Every function here runs on V = T (one row) or V = Lanes<T> (kLanes<T> rows).
#include "harmonic/ops/cpu/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <type_traits>
#include <utility>

#include "harmonic/core/error.h"
#include "harmonic/ops/cpu/fft_butterfly.h"

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
    Stage st{p, n_cur / p, s, {}, {}, {}, {}};
    st.wr.resize(st.m * (p - 1)), st.wi.resize(st.m * (p - 1));
    for (int64_t j = 0; j < st.m; ++j)
      for (int t = 1; t < p; ++t) {
        const auto [c, si] = root(j * t, n_cur);
        st.wr[j * (p - 1) + t - 1] = static_cast<T>(c), st.wi[j * (p - 1) + t - 1] = static_cast<T>(si);
      }
    if (s == 1 && (p == 8 || p == 4) && p % kLanes<T> == 0) {  // run_first_stage
      st.wtr.resize(st.wr.size()), st.wti.resize(st.wi.size());
      for (int64_t j = 0; j < st.m; ++j)
        for (int t = 1; t < p; ++t)
          st.wtr[(t - 1) * st.m + j] = st.wr[j * (p - 1) + t - 1], st.wti[(t - 1) * st.m + j] = st.wi[j * (p - 1) + t - 1];
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
template <class V>
void ComplexPlan<T>::stockham(V* re, V* im, V* work) const {
  // With an odd stage count the last stage (m = 1: each butterfly reads and writes the same p
  // elements) runs in place, so the result lands in re, im without a copy back.
  V *xr = re, *xi = im, *yr = work, *yi = work + n_;
  const size_t count = stages_.size();
  for (size_t k = 0; k < count; ++k) {
    const Stage& st = stages_[k];
    if (k + 1 == count && count % 2) yr = xr, yi = xi;
    if constexpr (std::is_same_v<V, T>)
      if (!st.wtr.empty()) {
        if (st.p == 8)
          run_first_stage<T, 8>(xr, xi, yr, yi, st.m, st.wtr.data(), st.wti.data());
        else if constexpr (kLanes<T> <= 4)
          run_first_stage<T, 4>(xr, xi, yr, yi, st.m, st.wtr.data(), st.wti.data());
        std::swap(xr, yr), std::swap(xi, yi);
        continue;
      }
    const T *wr = st.wr.data(), *wi = st.wi.data();
    const T *rr = root_re_.data() + root_off_[k], *ri = root_im_.data() + root_off_[k];
    switch (st.p) {
      case 2:
        run_stage<T, V, 2>(xr, xi, yr, yi, 2, st.m, st.s, wr, wi, rr, ri);
        break;
      case 3:
        run_stage<T, V, 3>(xr, xi, yr, yi, 3, st.m, st.s, wr, wi, rr, ri);
        break;
      case 4:
        run_stage<T, V, 4>(xr, xi, yr, yi, 4, st.m, st.s, wr, wi, rr, ri);
        break;
      case 5:
        run_stage<T, V, 5>(xr, xi, yr, yi, 5, st.m, st.s, wr, wi, rr, ri);
        break;
      case 8:
        run_stage<T, V, 8>(xr, xi, yr, yi, 8, st.m, st.s, wr, wi, rr, ri);
        break;
      default:
        run_stage<T, V, 0>(xr, xi, yr, yi, st.p, st.m, st.s, wr, wi, rr, ri);
    }
    std::swap(xr, yr), std::swap(xi, yi);
  }
}

// X_k = c_k sum_j (x_j c_j) conj(c_{k-j}) with c_j = exp(-i pi j^2 / n) (jk = (j^2 + k^2 -
// (k-j)^2) / 2): a circular convolution of length m_ >= 2n - 1 by two inner transforms. (No
// omp simd on its loops: with V = Lanes<T> they are vector code already; -O3 vectorises V = T.)
template <class T>
template <class V>
void ComplexPlan<T>::bluestein(V* re, V* im, V* work) const {
  V *ar = work, *ai = work + m_, *w2 = work + 2 * m_;
  const T *cr = chirp_re_.data(), *ci = chirp_im_.data(), *kr = kernel_re_.data(), *ki = kernel_im_.data();
  for (int64_t j = 0; j < n_; ++j) ar[j] = re[j] * cr[j] - im[j] * ci[j], ai[j] = re[j] * ci[j] + im[j] * cr[j];
  for (int64_t j = n_; j < m_; ++j) ar[j] = V{}, ai[j] = V{};
  inner_->template stockham<V>(ar, ai, w2);
  for (int64_t k = 0; k < m_; ++k) {  // times the kernel, conjugated for the inverse by conj(F(conj))
    const V r = ar[k] * kr[k] - ai[k] * ki[k], i = ar[k] * ki[k] + ai[k] * kr[k];
    ar[k] = r, ai[k] = -i;
  }
  inner_->template stockham<V>(ar, ai, w2);
  for (int64_t k = 0; k < n_; ++k) {  // conj(a_k) c_k
    const V r = ar[k], i = -ai[k];
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

template <class T>
void ComplexPlan<T>::forward_lanes(Lanes<T>* re, Lanes<T>* im, Lanes<T>* work) const {
  if (inner_)
    bluestein(re, im, work);
  else
    stockham(re, im, work);
}

template <class T>
void ComplexPlan<T>::inverse_lanes(Lanes<T>* re, Lanes<T>* im, Lanes<T>* work) const {
  for (int64_t i = 0; i < n_; ++i) im[i] = -im[i];
  forward_lanes(re, im, work);
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
