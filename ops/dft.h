// A host-side complex DFT of any length, float64: iterative radix-2 when the length is a power
// of two, Bluestein's chirp-z (three power-of-two FFTs) otherwise, so every length costs
// O(m log m). Not a tensor op: evaluation code (the smoothness metric, its noise validation)
// uses it on rows it has already copied to the host.
#pragma once
#include <complex>
#include <vector>

namespace hm {

// In place: X_k = sum_j x_j exp(-2 pi i j k / m); inverse = true uses exp(+...) and divides by m.
void dft_inplace(std::vector<std::complex<double>>& x, bool inverse = false);

}  // namespace hm
