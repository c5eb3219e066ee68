// The per-step GEMM formulation of the fused FRU/SRU recurrence (ops/cpu/fru_recurrence_batched.cpp). It
// runs whenever a step's M_t = [M_1,t .. M_G,t] (d, G*R) has more than 4096 entries,
// whatever the thread count, so every shape here has G*d*R > 4096 (the SRU's 5 decays with
// d = R = 30: 4500; the FRU's two decay groups with d = 35, R = 60: 4200); tests/nn/test_fru.cpp
// covers the per-row loops with small shapes. Float64 gradcheck of both ops against finite
// differences, the fused SRU/FRU modules against their step-by-step composition (forward and
// forward_last, all outputs and gradients), and float32 against float64 over 300 steps.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/nn/fru.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_head.h"
#include "harmonic/ops/fru_recurrence.h"
#include "tests/device_harness.h"
#include "tests/fru_twins.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

namespace {

Tensor f64(const std::vector<double>& v) { return from_vector(v, {int64_t(v.size())}, {.dtype = DType::Float64}); }

const std::vector<double> kSruDecays{0.0, 0.25, 0.5, 0.9, 0.99};

// Inputs px, w_r, b_r, w_pr, coef, mu0 of the op; coef constant in time when const_coef (the
// SRU's case, where the kernel keeps one M for all steps).
std::vector<Tensor> op_inputs(int64_t T, int64_t B, int64_t K, int64_t d, int64_t R, bool const_coef, uint64_t seed) {
  Tensor coef = const_coef ? expand(leaf64({1, K}, seed + 4, 0.5).detach(), {T, K}).contiguous().requires_grad_(true)
                           : leaf64({T, K}, seed + 4, 0.5);
  return {leaf64({T, B, d}, seed, 0.5),
          leaf64({R, K * d}, seed + 1, 0.05),
          leaf64({R}, seed + 2, 0.2),
          leaf64({d, R}, seed + 3, 0.1),
          coef,
          leaf64({B, K * d}, seed + 5, 0.5)};
}

// Gradcheck of fru_recurrence and fru_recurrence_last through a fixed projection of the
// states to 3 values per row (every state entry has a nonzero weight), which keeps the number
// of backward passes of the Jacobian small. Without check_w_r, w_r (> 4096 entries, most of
// the finite differences) is a constant.
void gradcheck_projected(int64_t T, int64_t B, int64_t K, int64_t d, int64_t R, const std::vector<double>& decay,
                         bool const_coef, bool check_w_r, uint64_t seed) {
  INFO("T " << T << " B " << B << " K " << K << " d " << d << " R " << R << " const coef " << const_coef);
  REQUIRE(int64_t(decay.size()) == K);
  std::vector<Tensor> in = op_inputs(T, B, K, d, R, const_coef, seed);
  if (!check_w_r) in[1] = in[1].detach();
  Tensor dec = f64(decay), proj = leaf64({K * d, 3}, seed + 6).detach();
  for (bool last : {false, true}) {
    INFO("last " << last);
    CHECK(gradcheck(
        [&](const std::vector<Tensor>& x) {
          Tensor mu = last ? fru_recurrence_last(x[0], x[1], x[2], x[3], x[4], dec, x[5])
                           : fru_recurrence(x[0], x[1], x[2], x[3], x[4], dec, x[5]);
          return matmul(reshape(mu, {-1, K * d}), proj);
        },
        in));
  }
}

// Fused forward (or forward_last) against the composed forward: outputs, then the gradients of
// x, mu0 and every parameter under loss = sum(last * w) + sum(mu_n * v) (+ sum(output * u)).
template <class M>
void check_fused_equals_composed(M& fused, M& composed, int64_t B, int64_t T, bool last_only) {
  INFO("last only " << last_only);
  Tensor u = leaf64({B, T, fused.output_units}, 90).detach(), w = leaf64({B, fused.output_units}, 91).detach();
  Tensor v = leaf64({B, fused.state_size()}, 92).detach();
  Tensor x1 = leaf64({B, T, fused.input_size}, 93), x2 = leaf64({B, T, fused.input_size}, 93);
  Tensor m1 = leaf64({B, fused.state_size()}, 94, 0.1), m2 = leaf64({B, fused.state_size()}, 94, 0.1);
  auto o1 = last_only ? fused.forward_last(x1, m1) : fused.forward(x1, m1);
  auto o2 = composed.forward(x2, m2);
  CHECK(allclose(o1.last, o2.last, 1e-10, 1e-12));
  CHECK(allclose(o1.mu_n, o2.mu_n, 1e-10, 1e-12));
  Tensor l1 = add(sum(mul(o1.last, w)), sum(mul(o1.mu_n, v))), l2 = add(sum(mul(o2.last, w)), sum(mul(o2.mu_n, v)));
  if (!last_only) {
    CHECK(allclose(o1.output, o2.output, 1e-10, 1e-12));
    l1 = add(l1, sum(mul(o1.output, u)));
    l2 = add(l2, sum(mul(o2.output, u)));
  }
  l1.backward();
  l2.backward();
  CHECK(allclose(x1.grad(), x2.grad(), 1e-9, 1e-12));
  CHECK(allclose(m1.grad(), m2.grad(), 1e-9, 1e-12));
  auto p1 = fused.named_parameters(), p2 = composed.named_parameters();
  REQUIRE(p1.size() == p2.size());
  for (size_t i = 0; i < p1.size(); ++i) {
    INFO(p1[i].first);
    REQUIRE(p1[i].second.grad().defined());
    CHECK(allclose(p1[i].second.grad(), p2[i].second.grad(), 1e-9, 1e-12));
  }
}

}  // namespace

TEST_CASE("fru_recurrence GEMM path: gradcheck (SRU decays 0 to 0.99, FRU mask, constant and varying coef)") {
  gradcheck_projected(3, 2, 5, 30, 30, kSruDecays, true, true, 1);         // the SRU: one M for all steps
  gradcheck_projected(4, 3, 5, 30, 30, kSruDecays, false, false, 11);      // same decays, coef varying in t
  gradcheck_projected(4, 2, 3, 35, 60, {0.0, 1.0, 1.0}, false, true, 21);  // FRU, f = 0 slot masked
  gradcheck_projected(3, 2, 1, 70, 60, {0.9}, true, false, 31);            // one group (G = 1)
}

TEST_CASE("SRU fused == composed on the GEMM path (phi 30, r 30, decays 0 to 0.99), forward and forward_last") {
  nn::SRUOptions opt{.decays = kSruDecays, .phi_size = 30, .r_size = 30, .output_units = 5};
  for (bool last_only : {false, true}) {
    auto [a, b] = twin<nn::SRU>(2, opt);
    check_fused_equals_composed(*a, *b, 3, 7, last_only);
    auto [c, e] = twin<nn::SRU>(1, opt);  // one input: the broadcast input projection
    check_fused_equals_composed(*c, *e, 2, 6, last_only);
  }
}

TEST_CASE("FRU fused == composed on the GEMM path (K 3, d 35, r 60), forward and forward_last") {
  nn::FRUOptions opt{.num_freqs = 3, .dims_per_freq = 35, .r_size = 60, .output_units = 4, .f_max = 5, .seq_len = 6};
  for (bool last_only : {false, true}) {
    auto [a, b] = twin<nn::FRU>(1, opt);
    check_fused_equals_composed(*a, *b, 2, 6, last_only);
  }
}

TEST_CASE("fru_recurrence GEMM path: float32 over 300 steps stays close to float64 (values and gradients)") {
  const int64_t T = 300, B = 3, K = 5, d = 30, R = 30;
  std::vector<Tensor> in64 = op_inputs(T, B, K, d, R, true, 111);
  Tensor dec = f64(kSruDecays);
  for (bool last : {false, true}) {
    const FruPrecisions r = fru_recurrence_in_both_precisions(in64, dec, last);
    CHECK(allclose(r.m32, r.m64, 1e-4, 1e-4 * amax(abs(r.m64)).item<double>()));
    for (size_t i = 0; i < in64.size(); ++i) {
      INFO("last " << last << " input " << i);
      CHECK(allclose(r.g32[i], r.g64[i], 1e-3, 1e-3 * amax(abs(r.g64[i])).item<double>()));
    }
  }
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] fru_recurrence matches the CPU (float32 and float64, with and without mu0)") {
  announce_targets();
  struct Size {
    int64_t T, B, d, R, K;
  };
  // The second size has more state (K d = 280) than a row block has threads (256).
  for (const Size& z : {Size{5, 3, 4, 3, 2}, Size{4, 2, 40, 30, 7}})
    for (DType dt : {DType::Float64, DType::Float32})
      for (bool with_mu0 : {true, false}) {
        CAPTURE(z.d);
        CAPTURE(with_mu0);
        std::vector<double> decays;
        for (int64_t k = 0; k < z.K; ++k)
          decays.push_back(0.5 + 0.4 * static_cast<double>(k) / static_cast<double>(z.K));
        const Tensor decay = from_vector(decays, {z.K}).to(dt);
        std::vector<Tensor> inputs = {scaled_normal({z.T, z.B, z.d}, 21, 0.5, dt),
                                      scaled_normal({z.R, z.K * z.d}, 22, 0.3, dt), scaled_normal({z.R}, 23, 0.2, dt),
                                      scaled_normal({z.d, z.R}, 24, 0.3, dt), scaled_normal({z.T, z.K}, 25, 0.2, dt)};
        if (with_mu0) inputs.push_back(scaled_normal({z.B, z.K * z.d}, 26, 0.5, dt));
        check_against_cpu(
            "fru_recurrence",
            [=](const std::vector<Tensor>& x) {
              return fru_recurrence(x[0], x[1], x[2], x[3], x[4], decay.to(x[0].device()), with_mu0 ? x[5] : Tensor());
            },
            inputs);
      }
}

}  // namespace cuda_cases
