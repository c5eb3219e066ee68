// The Fourier head paper's Appendix B test signals for smoothness metrics, framed as pmfs:
// truncated square waves (Figure 6) and coloured noises (Table 4).
#pragma once
#include <complex>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hm::data {

// sum_{k=1}^{terms} sin((2k - 1) t) / (2k - 1) over one period sampled at m points
// (t = 2 pi (j + 0.5) / m), negative parts set to 0, normalised to sum 1. More terms: sharper.
std::vector<double> square_wave_pmf(int64_t terms, int64_t m);
// square_wave_pmf(k, m) for k = 1..max_terms, [k - 1], each wave the one before plus a term.
std::vector<std::vector<double>> square_wave_pmfs(int64_t max_terms, int64_t m);

// Smoothest to sharpest: power S ∝ F^-beta with beta = 2, 1, 0, -1.
enum class NoiseColour { Brown, Pink, White, Blue };
inline constexpr NoiseColour kNoiseColours[] = {NoiseColour::Brown, NoiseColour::Pink, NoiseColour::White,
                                                NoiseColour::Blue};
std::string_view noise_colour_name(NoiseColour colour);  // "brown", "pink", "white", "blue"

// Coloured noise as a pmf from the DFT `spectrum` of white N(0, 1) samples (shaping the same
// draws into every colour pairs the colours): every component's amplitude multiplied by
// |F|^(-beta/2) (F = k/t cycles per sample, the DC term zeroed for beta != 0), inverse DFT,
// then range-normalised to [0, 1] and to sum 1.
std::vector<double> coloured_noise_pmf(std::vector<std::complex<double>> spectrum, NoiseColour colour);

}  // namespace hm::data
