// fourier_attention's tiled CUDA kernels (cuda/fourier_attention_tiled.cu) against the CPU kernels: on cuda:0 when
// present, and always through their host twin, which runs the blocks' code on the CPU thread by thread with the same
// tiles and summation order; and the op's choice of them on a device.
#include <doctest/doctest.h>

#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/cuda/runtime/runtime.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/fourier_attention.h"
#include "harmonic/ops/fourier_attention_kernels.h"
#include "harmonic/ops/reduce.h"
#include "tests/device_harness.h"
#include "tests/ops/shared_inputs.h"

using namespace hm;
using namespace hm::test;

TEST_CASE(
    "[cuda] tiled fourier_attention kernels match the CPU (awkward sizes, Nq != Nk, head dims 8 to 64, masks, "
    "dropout, the authors' eps normalisation)") {
  announce_targets();
  struct Case {
    int64_t nq, nk, d;
    int mode;  // 0 none, 1 causal, 2 padding (a fully padded batch) + dropout, 3 causal + padding + dropout
    bool vector_r;
    double eps = 0.0;  // A = K / (sum K + eps): 1e-6 the authors', 1e3 above every row's sum
  };
  // 70 and 100 keys: no multiple of the 64-key tiles; 37 queries under 100 keys: bottom-right
  // causal, so early rows see keys of several tiles and late key tiles only some query tiles.
  for (const Case& c : {Case{70, 70, 16, 0, true}, Case{70, 70, 8, 1, false}, Case{37, 100, 32, 1, true},
                        Case{100, 37, 16, 3, true}, Case{65, 65, 64, 2, false}, Case{70, 70, 16, 1, true, 1e-6},
                        Case{37, 100, 32, 3, true, 0.5}, Case{65, 65, 8, 2, false, 1e3}}) {
    CAPTURE(c.nq);
    CAPTURE(c.nk);
    CAPTURE(c.d);
    CAPTURE(c.mode);
    CAPTURE(c.eps);
    std::vector<int64_t> pv(2 * c.nk, 0);
    pv[1] = 1, pv[c.nk - 2] = 1;
    for (int64_t j = 0; j < c.nk; ++j) pv[c.nk + j] = 1;  // batch 1: every key padded
    const Tensor pad = ne(from_vector(pv, {2, c.nk}), zeros({2, c.nk}, {.dtype = DType::Int64}));
    const DType dt = DType::Float32;
    Tensor R = c.vector_r ? add(mul(rand({c.d}, {.dtype = dt}), 2.0), 0.5) : full({}, 1.5, {.dtype = dt});
    const std::vector<Tensor> inputs = {scaled_normal({2, 2, c.nq, c.d}, 11, 0.5, dt),
                                        scaled_normal({2, 2, c.nk, c.d}, 12, 0.5, dt),
                                        scaled_normal({2, 2, c.nk, c.d}, 13, 1.0, dt), R, pad};
    const int64_t runs = fourier_attention_tiled_runs();
    check_against_cpu(
        "fourier_attention (tiled)",
        [=](const std::vector<Tensor>& x) {
          FourierAttentionMask m{.causal = c.mode == 1 || c.mode == 3};
          if (c.mode >= 2) m.key_padding_mask = x[4];
          Generator gen(7);  // fresh per call: the same dropout mask on every target
          // recompute: the host twins run on CPU tensors, where the op saves A unless asked not to
          return fourier_attention(x[0], x[1], x[2], x[3], 4, m, c.mode >= 2 ? 0.3 : 0.0, true, &gen, true, c.eps);
        },
        inputs);
    if (kBuiltWithCuda) CHECK(fourier_attention_tiled_runs() > runs);  // the tiles ran, not the reference
  }
}

TEST_CASE(
    "[cuda] fourier_attention on a device takes the tiled kernels where they cover the case, whatever recompute says") {
  announce_targets();
  if (!cuda::available()) return;
  const Device dev = Device::cuda(0);
  auto leaf = [&](const Shape& s, uint64_t seed) {
    return scaled_normal(s, seed, 0.5, DType::Float32).to(dev).requires_grad_(true);
  };
  Tensor q = leaf({1, 2, 20, 16}, 1), k = leaf({1, 2, 20, 16}, 2), v = leaf({1, 2, 20, 16}, 3);
  Tensor R = full({}, 2.0, {.dtype = DType::Float32}).to(dev).requires_grad_(true);
  const int64_t runs = fourier_attention_tiled_runs();
  sum(fourier_attention(q, k, v, R, 4, {.causal = true})).backward();
  CHECK(fourier_attention_tiled_runs() == runs + 2);  // forward and backward
  // odd p has no logsumexp form: the reference kernels
  sum(fourier_attention(q, k, v, R, 3, {.causal = true})).backward();
  CHECK(fourier_attention_tiled_runs() == runs + 2);
}
