// CUDA kernels of the Fourier op families (cuda/fourier_head.cu, cuda/fourier_attention.cu,
// cuda/fru.cu) against the CPU kernels (tests/device_harness.h): on cuda:0 when present,
// and always in CUDA builds through the kernels' host twins. Forward and every input
// gradient are compared with the normalised error (default 1e-7).
#include <doctest/doctest.h>

#include "core/factories.h"
#include "core/random.h"
#include "ops/elementwise.h"
#include "ops/fourier_attention.h"
#include "ops/fourier_head.h"
#include "ops/fru_recurrence.h"
#include "tests/device_harness.h"

using namespace hm;
using namespace hm::test;

namespace {

Tensor normal(const Shape& shape, uint64_t seed, double scale = 1.0, DType dtype = DType::Float64) {
  Generator gen(seed);
  return mul(randn(shape, {.dtype = DType::Float64}, &gen), scale).to(dtype);
}

Tensor bool_mask(const std::vector<int64_t>& values, const Shape& shape) {
  return ne(from_vector(values, shape), zeros(shape, {.dtype = DType::Int64}));
}

}  // namespace

TEST_CASE("[cuda] fourier_head_log_pmf matches the CPU (even and odd bins, float32 and float64)") {
  announce_targets();
  for (DType dt : {DType::Float64, DType::Float32})
    for (int64_t bins : {8, 9, 1, 33}) {
      CAPTURE(bins);
      check_against_cpu(
          "fourier_head_log_pmf", [bins](const std::vector<Tensor>& x) { return fourier_head_log_pmf(x[0], bins); },
          {normal({3, 2, 10}, 11 + bins, 0.5, dt)},
          // one bin: every output is log(1 + 1e-5) ~ 1e-5, where float32's rounding of the
          // 1 + 1e-5 inside the log (6e-8) is already a 1e-2 relative error, and the CPU's
          // vectorised log and libm's logf round it differently.
          dt == DType::Float32 && bins == 1 ? 1e-4 : kTolerance);
    }
}

TEST_CASE("[cuda] fourier_attention matches the CPU (masks, dropout, recompute, dtypes)") {
  announce_targets();
  Tensor pad = bool_mask({0, 1, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 5});  // batch 1: every key padded
  for (DType dt : {DType::Float64, DType::Float32})
    for (bool recompute : {false, true})
      for (int mode = 0; mode < 4; ++mode) {  // none, causal, padding (odd p), causal + padding + dropout
        CAPTURE(recompute);
        CAPTURE(mode);
        const std::vector<Tensor> inputs = {normal({2, 2, 4, 3}, 1, 0.5, dt), normal({2, 2, 5, 3}, 2, 0.5, dt),
                                            normal({2, 2, 5, 2}, 3, 1.0, dt),
                                            from_vector(std::vector<double>{0.5, 2.0, 1.0}, {3}).to(dt), pad};
        check_against_cpu(
            "fourier_attention",
            [=](const std::vector<Tensor>& x) {
              FourierAttentionMask m{.causal = mode == 1 || mode == 3};
              if (mode >= 2) m.key_padding_mask = x[4];
              Generator gen(7);  // fresh per call: the same dropout mask on every target
              return fourier_attention(x[0], x[1], x[2], x[3],
                                       mode == 3   ? 6
                                       : mode == 2 ? 3
                                                   : 4,
                                       m, mode == 3 ? 0.3 : 0.0, true, &gen, recompute);
            },
            inputs);
      }
}

TEST_CASE("[cuda] fru_recurrence matches the CPU (float32 and float64, with and without mu0)") {
  announce_targets();
  const int64_t T = 5, B = 3, d = 4, R = 3, K = 2;
  for (DType dt : {DType::Float64, DType::Float32})
    for (bool with_mu0 : {true, false}) {
      CAPTURE(with_mu0);
      const Tensor decay = from_vector(std::vector<double>{0.5, 0.9}, {K}).to(dt);
      std::vector<Tensor> inputs = {normal({T, B, d}, 21, 0.5, dt), normal({R, K * d}, 22, 0.3, dt),
                                    normal({R}, 23, 0.2, dt), normal({d, R}, 24, 0.3, dt), normal({T, K}, 25, 0.2, dt)};
      if (with_mu0) inputs.push_back(normal({B, K * d}, 26, 0.5, dt));
      check_against_cpu(
          "fru_recurrence",
          [=](const std::vector<Tensor>& x) {
            return fru_recurrence(x[0], x[1], x[2], x[3], x[4], decay.to(x[0].device()), with_mu0 ? x[5] : Tensor());
          },
          inputs);
    }
}
