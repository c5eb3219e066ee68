// Dropout keep factors for a run of consecutive elements of one Philox draw, vectorised: the
// Philox blocks (4 uniforms each) are generated 16 at a time in a SIMD loop, so the mask of
// element i is exactly dropout_keep(seed, offset, i, p) (ops/dropout_functors.h) at a fraction of
// the scalar cost. Used by the CPU dropout and fused attention kernels.
#pragma once
#include <algorithm>
#include <cstdint>

#include "harmonic/core/philox.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace hm {

namespace detail {

#if defined(__AVX512F__)
// GCC 12 writes the plain forms of these intrinsics with an uninitialised vector as the
// (unused) merge source, which -Wmaybe-uninitialized reports once they are inlined; the
// zero-masking forms with every lane selected compute the same without one.
constexpr __mmask16 kAll16 = 0xFFFF;
constexpr __mmask8 kAll8 = 0xFF;
inline __m512i srli64(__m512i a, unsigned n) { return _mm512_maskz_srli_epi64(kAll8, a, n); }
inline __m512i mul_epu32(__m512i a, __m512i b) { return _mm512_maskz_mul_epu32(kAll8, a, b); }
inline __m512i unpacklo32(__m512i a, __m512i b) { return _mm512_maskz_unpacklo_epi32(kAll16, a, b); }
inline __m512i unpackhi32(__m512i a, __m512i b) { return _mm512_maskz_unpackhi_epi32(kAll16, a, b); }
inline __m512i unpacklo64(__m512i a, __m512i b) { return _mm512_maskz_unpacklo_epi64(kAll8, a, b); }
inline __m512i unpackhi64(__m512i a, __m512i b) { return _mm512_maskz_unpackhi_epi64(kAll8, a, b); }
template <int imm> __m512i shuffle_i32x4(__m512i a, __m512i b) { return _mm512_maskz_shuffle_i32x4(kAll16, a, b, imm); }
#endif

// u[4 b + lane] = philox::generate(seed, counter + b).v[lane] for b < 16.
inline void philox_16_blocks(uint64_t seed, uint64_t counter, uint32_t* u) {
#if defined(__AVX512F__)
  // 16 blocks, one per 32-bit lane: the 32x32 -> 64 products as even/odd vpmuludq pairs.
  const __m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i base_lo = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(counter)));
  __m512i c0 = _mm512_add_epi32(base_lo, idx);
  const __mmask16 carry = _mm512_cmplt_epu32_mask(c0, base_lo);  // the low word wrapped
  __m512i c1 = _mm512_mask_add_epi32(_mm512_set1_epi32(static_cast<int32_t>(counter >> 32)), carry,
                                     _mm512_set1_epi32(static_cast<int32_t>(counter >> 32)), _mm512_set1_epi32(1));
  __m512i c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  const __m512i m0 = _mm512_set1_epi32(static_cast<int32_t>(0xD2511F53u));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int32_t>(0xCD9E8D57u));
  auto mulhi = [](__m512i a, __m512i m) {  // high 32 bits of each unsigned 32x32 product
    const __m512i even = srli64(mul_epu32(a, m), 32);
    const __m512i odd = mul_epu32(srli64(a, 32), m);
    return _mm512_mask_blend_epi32(0xAAAA, even, odd);
  };
  for (int round = 0; round < 10; ++round) {
    const __m512i hi0 = mulhi(c0, m0), lo0 = _mm512_mullo_epi32(c0, m0);
    const __m512i hi1 = mulhi(c2, m1), lo1 = _mm512_mullo_epi32(c2, m1);
    c0 = _mm512_ternarylogic_epi32(hi1, c1, _mm512_set1_epi32(static_cast<int32_t>(k0)), 0x96);  // a ^ b ^ c
    c1 = lo1;
    c2 = _mm512_ternarylogic_epi32(hi0, c3, _mm512_set1_epi32(static_cast<int32_t>(k1)), 0x96);
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  // 4 x 16 -> 16 x 4: within 128-bit lanes, then across them; block b lands at u[4 b].
  const __m512i t0 = unpacklo32(c0, c1), t1 = unpacklo32(c2, c3);
  const __m512i t2 = unpackhi32(c0, c1), t3 = unpackhi32(c2, c3);
  const __m512i r0 = unpacklo64(t0, t1), r1 = unpackhi64(t0, t1);
  const __m512i r2 = unpacklo64(t2, t3), r3 = unpackhi64(t2, t3);
  const __m512i s0 = shuffle_i32x4<0x44>(r0, r1), s1 = shuffle_i32x4<0x44>(r2, r3);
  const __m512i s2 = shuffle_i32x4<0xEE>(r0, r1), s3 = shuffle_i32x4<0xEE>(r2, r3);
  _mm512_storeu_si512(u, shuffle_i32x4<0x88>(s0, s1));
  _mm512_storeu_si512(u + 16, shuffle_i32x4<0xDD>(s0, s1));
  _mm512_storeu_si512(u + 32, shuffle_i32x4<0x88>(s2, s3));
  _mm512_storeu_si512(u + 48, shuffle_i32x4<0xDD>(s2, s3));
#else
#pragma omp simd
  for (int64_t b = 0; b < 16; ++b) {
    const philox::Block r = philox::generate(seed, counter + static_cast<uint64_t>(b));
    u[4 * b] = r.v[0], u[4 * b + 1] = r.v[1], u[4 * b + 2] = r.v[2], u[4 * b + 3] = r.v[3];
  }
#endif
}

}  // namespace detail

// z[c] = (uniform(seed, offset, base + c) >= p) ? scale : 0 for c in [0, n).
template <class T>
void dropout_factors(uint64_t seed, uint64_t offset, uint64_t base, int64_t n, float p, T scale, T* z) {
  constexpr int64_t kBlocks = 16;
  uint32_t u[4 * kBlocks];  // element order: u[4 b + lane] is uniform lane of block b
  int64_t c = 0;
  while (c < n) {
    const uint64_t i = base + static_cast<uint64_t>(c), first = i / 4;
    const int64_t lane0 = static_cast<int64_t>(i % 4), count = std::min<int64_t>(n - c, 4 * kBlocks - lane0);
    detail::philox_16_blocks(seed, offset + first, u);
    const uint32_t* ue = u + lane0;
    T* zc = z + c;
#pragma omp simd
    for (int64_t e = 0; e < count; ++e) zc[e] = philox::to_unit_float(ue[e]) >= p ? scale : T(0);
    c += count;
  }
}

}  // namespace hm
