// FFT plans for the CPU, written for Harmonic (no FFT library: FFTW is GPL).
//   ComplexPlan<T>(n): an unnormalised forward DFT X_k = sum_j x_j exp(-2 pi i j k / n) on split
//     real/imaginary arrays. Lengths whose prime factors are all <= kMaxRadix run an iterative
//     Stockham autosort FFT (radix 8, 4, 2, 3, 5 butterflies written out, a generic O(p^2)
//     butterfly for 7, 11, 13, ...); other lengths run Bluestein's chirp-z transform through a
//     plan of the smallest 5-smooth length >= 2n - 1. The inverse is conj(forward(conj(x))).
//   RealPlan<T>(n): the one-sided real transforms (R2C: n reals -> n/2 + 1 bins, C2R: back,
//     unnormalised). Even n packs the signal into a half-length complex FFT (z_j = x_2j +
//     i x_2j+1) and untangles the two halves with one twiddle pass; odd n uses a full complex FFT.
// Twiddles, factorisation and the Bluestein chirp are computed once per (length, dtype) and
// cached (plan() and real_plan(): a mutex-guarded map of immutable shared plans, so any thread
// may run any plan). Angles are reduced in integers and evaluated in double before rounding to
// T, which keeps float64 transforms at ~1e-15 relative error per stage.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "harmonic/ops/cpu/fft_lane_type.h"

namespace hm::cpu_fft {

constexpr int kMaxRadix = 13;  // larger prime factors go through Bluestein

template <class T>
class ComplexPlan {
 public:
  explicit ComplexPlan(int64_t n);
  int64_t size() const { return n_; }
  // Scratch (in elements of T) that forward() needs beside the data.
  int64_t work_size() const { return work_; }
  // In place on re (n), im (n); work holds work_size() elements.
  void forward(T* re, T* im, T* work) const;
  // Unnormalised inverse (exp(+2 pi i j k / n)), in place.
  void inverse(T* re, T* im, T* work) const;
  // kLanes<T> transforms at once, one per lane (ops/cpu/fft_lanes.h): re, im (n) and work
  // (work_size()) in Lanes<T>, same algorithm and rounding as forward() / inverse() per lane.
  void forward_lanes(Lanes<T>* re, Lanes<T>* im, Lanes<T>* work) const;
  void inverse_lanes(Lanes<T>* re, Lanes<T>* im, Lanes<T>* work) const;
  bool uses_bluestein() const { return static_cast<bool>(inner_); }
  // Whether the one-row forward() vectorises every stage: a Stockham plan whose first stage
  // (s = 1) runs blocked along j (run_first_stage), so every later stage has s >= kLanes<T>.
  bool row_vectorised() const { return !inner_ && !stages_.empty() && !stages_[0].wtr.empty(); }

 private:
  struct Stage {
    int p;                  // radix
    int64_t m, s;           // sub-length n_cur / p and stride of this stage
    std::vector<T> wr, wi;  // (m, p - 1): w_{n_cur}^{j t}, t = 1..p-1
    std::vector<T> wtr, wti;  // first stage with p % kLanes<T> == 0 only: the same, (p - 1, m)
  };
  // V = T (one row) or Lanes<T> (a block of rows).
  template <class V>
  void stockham(V* re, V* im, V* work) const;
  template <class V>
  void bluestein(V* re, V* im, V* work) const;

  int64_t n_ = 0, work_ = 0;
  std::vector<Stage> stages_;
  std::vector<T> root_re_, root_im_;  // generic radices: w_p^k for every stage's p, by offset
  std::vector<int64_t> root_off_;     // stage -> offset in root_*
  // Bluestein: inner 5-smooth plan of length m_, chirp c_j = exp(-i pi j^2 / n) (n) and the
  // transformed conjugate chirp divided by m_ (m_).
  std::shared_ptr<const ComplexPlan<T>> inner_;
  int64_t m_ = 0;
  std::vector<T> chirp_re_, chirp_im_, kernel_re_, kernel_im_;
};

template <class T>
class RealPlan {
 public:
  explicit RealPlan(int64_t n);
  int64_t size() const { return n_; }
  int64_t work_size() const { return work_; }
  // x (n) -> out (n/2 + 1, 2) interleaved (re, im), times scale.
  void r2c(const T* x, T* out, T scale, T* work) const;
  // The same for kLanes<T> rows at once: x + l ld_x -> out + l ld_out; work holds
  // lanes_work_size() Lanes<T>.
  int64_t lanes_work_size() const { return lanes_work_; }
  const ComplexPlan<T>& complex_plan() const { return *plan_; }
  void r2c_lanes(const T* x, int64_t ld_x, T* out, int64_t ld_out, T scale, Lanes<T>* work) const;
  // in (n/2 + 1, 2) -> x (n): x_j = scale sum_{k<n} X_k exp(2 pi i j k / n), X extended by
  // Hermitian symmetry; the imaginary parts of X_0 and (n even) X_{n/2} are ignored.
  void c2r(const T* in, T* x, T scale, T* work) const;
  void c2r_lanes(const T* in, int64_t ld_in, T* x, int64_t ld_x, T scale, Lanes<T>* work) const;

 private:
  int64_t n_ = 0, work_ = 0, lanes_work_ = 0;
  std::shared_ptr<const ComplexPlan<T>> plan_;  // length n/2 (even n) or n (odd n)
  std::vector<T> wr_, wi_;                      // even n: w_n^k, k < n/2
};

// The cached plans (thread-safe).
template <class T>
std::shared_ptr<const ComplexPlan<T>> plan(int64_t n);
template <class T>
std::shared_ptr<const RealPlan<T>> real_plan(int64_t n);

// Batched transforms over contiguous rows, OpenMP over rows (core/parallel.h).
// x (rows, n) -> out (rows, n/2 + 1, 2), times scale.
template <class T>
void rfft_rows(const T* x, T* out, int64_t rows, int64_t n, T scale);
// in (rows, n/2 + 1, 2) -> out (rows, n), unnormalised C2R times scale.
template <class T>
void irfft_rows(const T* in, T* out, int64_t rows, int64_t n, T scale);
// in (rows, n, 2) -> out (rows, n, 2), forward (sign -1) or inverse (+1), times scale.
template <class T>
void fft_rows(const T* in, T* out, int64_t rows, int64_t n, bool inverse, T scale);

}  // namespace hm::cpu_fft
