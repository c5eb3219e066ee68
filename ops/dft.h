// A host-side complex DFT of any length, float64, on std::complex rows the caller already has
// on the host (the smoothness metric and its noise validation). Not a tensor op: it runs the
// cached plans of the FFT op's CPU engine (ops/cpu/fft_plan.h: mixed radix, Bluestein for large
// prime factors), so every length costs O(m log m).
#pragma once
#include <complex>
#include <vector>

namespace hm {

// In place: X_k = sum_j x_j exp(-2 pi i j k / m); inverse = true uses exp(+...) and divides by m.
void dft_inplace(std::vector<std::complex<double>>& x, bool inverse = false);

}  // namespace hm
