// The SIMD lane type of the batched FFT (ops/cpu/fft_lanes.h): Lanes<T> holds one element of
// kLanes<T> rows side by side (8 floats or 4 doubles, 32 bytes; GCC/Clang vector extensions).
// Apart from the shuffles in fft_lanes.h so that fft_plan.h, which nvcc also reads (cuda/fft.cu),
// declares the lane entry points without them: nvcc's front end rejects pack expansions inside
// __builtin_shufflevector.
#pragma once

namespace hm::cpu_fft {

template <class T>
struct LaneTraits;
template <>
struct LaneTraits<float> {
  typedef float V __attribute__((vector_size(32)));
};
template <>
struct LaneTraits<double> {
  typedef double V __attribute__((vector_size(32)));
};
template <class T>
using Lanes = typename LaneTraits<T>::V;
template <class T>
constexpr int kLanes = static_cast<int>(32 / sizeof(T));

}  // namespace hm::cpu_fft
