// The max or min of a contiguous row, vectorised, with the same result on every compiler.
//
// `#pragma omp simd reduction(max : m)` may start each SIMD lane at the type's lowest finite
// value instead of the caller's identity: clang does, so a row of -inf reduced to -FLT_MAX
// and attention's fully-masked-row test missed it. The reduction stays (it is
// what vectorises the blend, 3-5x faster than hand-written lanes under GCC) and a result
// equal to that edge value is recomputed with a scalar scan from the caller's identity: the
// edge is only ever reached by a row of infinities or one holding the edge value itself.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

namespace hm::cpu {

// The max (IsMax) or min of f(p[i]) over i < n and init. NaN is not tracked (a comparison
// blend drops it); callers that must propagate NaN check for it separately.
template <bool IsMax, class T, class F>
T lane_extremum(const T* p, int64_t n, T init, F f) {  // p (n)
  auto better = [](T a, T b) { return IsMax ? (a > b ? a : b) : (a < b ? a : b); };
  T acc = init;
  if constexpr (IsMax) {
#pragma omp simd reduction(max : acc)
    for (int64_t i = 0; i < n; ++i) acc = better(f(p[i]), acc);
  } else {
#pragma omp simd reduction(min : acc)
    for (int64_t i = 0; i < n; ++i) acc = better(f(p[i]), acc);
  }
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T edge = IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    if (acc == edge && init != edge) {
      acc = init;
      for (int64_t i = 0; i < n; ++i) acc = better(f(p[i]), acc);
    }
  }
  return acc;
}

template <bool IsMax, class T>
T lane_extremum(const T* p, int64_t n, T init) {
  return lane_extremum<IsMax>(p, n, init, [](T v) { return v; });
}

}  // namespace hm::cpu
