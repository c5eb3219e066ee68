// The row draw of draw_categorical (ops/draw_categorical.h), shared by the CPU kernel and the
// CUDA kernel (HM_HD), so both draw the same columns from the same uniforms.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "harmonic/core/host_device.h"

namespace hm {

// Non-negative doubles order as their bit patterns (with -0 read as +0).
HM_HD uint64_t draw_weight_bits(double w) {
  w += 0.0;  // -0 + 0 = +0
  uint64_t b;
  memcpy(&b, &w, sizeof(b));
  return b;
}

HM_HD double draw_bits_weight(uint64_t b) {
  double w;
  memcpy(&w, &b, sizeof(w));
  return w;
}

// Row `r` of weights (rows of m, T = float or double) drawn with u: the top_k filter by a radix
// select of the k-th largest weight (8 passes of 8 bits over the row, a nth_element's value
// without reordering), then the running float64 total. index[r] = -1 for a row with a negative,
// non-finite or no positive weight.
template <class T>
struct DrawCategoricalRow {
  const T* weights;
  const double* u;
  int64_t* index;
  double* pmf;  // null unless asked for
  int64_t m, top_k;
  HM_HD double at(int64_t r, int64_t j) const { return static_cast<double>(weights[r * m + j]); }
  HM_HD void operator()(int64_t r) const {
    for (int64_t j = 0; j < m; ++j) {
      const double w = at(r, j);
      if (!(w >= 0.0) || !std::isfinite(w)) {
        index[r] = -1;
        return;
      }
    }
    double kth = 0.0;  // keep w >= kth
    if (top_k > 0 && top_k < m) {
      uint64_t prefix = 0, mask = 0;
      int64_t remaining = top_k;
      for (int shift = 56; shift >= 0; shift -= 8) {
        int64_t count[256];
        for (int d = 0; d < 256; ++d) count[d] = 0;
        for (int64_t j = 0; j < m; ++j) {
          const uint64_t b = draw_weight_bits(at(r, j));
          if ((b & mask) == prefix) ++count[(b >> shift) & 255u];
        }
        int d = 255;
        for (; d > 0 && count[d] < remaining; --d) remaining -= count[d];
        prefix |= static_cast<uint64_t>(d) << shift;
        mask |= uint64_t{255} << shift;
      }
      kth = draw_bits_weight(prefix);
    }
    double total = 0.0;
    for (int64_t j = 0; j < m; ++j) {
      const double w = at(r, j);
      if (w >= kth) total += w;
    }
    if (!(total > 0.0)) {
      index[r] = -1;
      return;
    }
    const double target = u[r] * total;
    double acc = 0.0;
    int64_t pick = -1;
    for (int64_t j = 0; j < m; ++j) {
      const double w = at(r, j);
      if (w >= kth && w > 0.0) {
        pick = j;
        if ((acc += w) > target) break;
      }
    }
    index[r] = pick;
    if (pmf)
      for (int64_t j = 0; j < m; ++j) {
        const double w = at(r, j);
        pmf[r * m + j] = w >= kth ? w / total : 0.0;
      }
  }
};

}  // namespace hm
