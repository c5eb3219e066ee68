// layer_norm, rms_norm, add_layer_norm and add_rms_norm.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;

// Reference: xl = torch.sin(torch.arange(24, dtype=torch.float64) * 1.3).reshape(2, 3, 4) * 2 + 0.5;
// F.layer_norm(xl, (3, 4), L(0.5, 1.5, 3, 4), L(-0.2, 0.3, 3, 4)); F.layer_norm(xl, (4,));
// xl * torch.rsqrt(xl.pow(2).mean(-1, keepdim=True) + 1e-6) * L(0.8, 1.2, 4)
TEST_CASE("layer_norm / rms_norm: values vs PyTorch") {
  Tensor x = add(wave({2, 3, 4}, 1.3, 2.0), 0.5);
  CHECK(allclose(layer_norm(x, {3, 4}, lin(0.5, 1.5, {3, 4}), lin(-0.2, 0.3, {3, 4})),
                 {-0.27488222, 0.57053947,   0.29102526,  -0.93876207, -1.2377534, 0.17772929,
                  1.4078325,   0.46613202,   -1.4718865,  -1.4235631,  0.88950087, 2.1903556,
                  -0.055572395, -0.8584274,  -0.60565317, 0.70862393,  1.2434274,  0.0081623365,
                  -1.2588436,  -0.40857791,  1.6652342,   1.9437867,   -0.19866751, -1.6353076}));
  CHECK(allclose(layer_norm(x, {4}),
                 {-0.32190003, 1.246011,   0.51692869,  -1.4410396, -1.5502454, 0.078259623, 1.2395907, 0.23239508,
                  -1.0080561,  -0.92319154, 0.60047666, 1.330771,   0.52170975, -1.2070071, -0.66633809, 1.3516355,
                  1.5446915,   0.054432662, -1.207205,  -0.39191925, 0.90693549, 0.99149298, -0.50628235, -1.3921461}));
  CHECK(allclose(rms_norm(x, lin(0.8, 1.2, {4})),
                 {0.26301813, 1.4895431,   1.0738173,  -0.69084263, -0.64096799, 0.54907618, 1.6844696, 0.86377256,
                  -0.57617007, -0.59560192, 0.89099458, 1.8498399,  0.47584099,  -1.0538375, -0.62927474, 1.7069048,
                  1.3399434,  0.18747005,  -1.116875,  -0.28877032, 0.97676715,  1.212455,   -0.089957022, -1.0830565}));
  Tensor x32 = x.to(DType::Float32);
  CHECK(allclose(layer_norm(x32, {4}), layer_norm(x, {4}), 1e-5, 1e-5));
  CHECK(allclose(rms_norm(x32), rms_norm(x), 1e-5, 1e-5));
}

TEST_CASE("layer_norm / rms_norm: gradcheck with and without affine, errors") {
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {3, 4}, in[1], in[2]); },
                  {leaf64({2, 3, 4}, 1), leaf64({3, 4}, 2), leaf64({3, 4}, 3)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}); }, {leaf64({2, 3, 4}, 4)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}, in[1]); }, {leaf64({3, 4}, 5), leaf64({4}, 6)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {4}, Tensor(), in[1]); },
                  {leaf64({3, 4}, 7), leaf64({4}, 8)}));
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(transpose(in[0], 0, 1), {3}, in[1], in[2]); },
                  {leaf64({3, 5}, 9), leaf64({3}, 10), leaf64({3}, 11)}));
  // Many rows: the blocked dweight/dbias reduction.
  CHECK(gradcheck([](const Inputs& in) { return layer_norm(in[0], {3}, in[1], in[2]); },
                  {leaf64({70, 3}, 12), leaf64({3}, 13), leaf64({3}, 14)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(in[0], in[1]); }, {leaf64({2, 3, 4}, 15), leaf64({4}, 16)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(in[0]); }, {leaf64({3, 5}, 17)}));
  CHECK(gradcheck([](const Inputs& in) { return rms_norm(transpose(in[0], 0, 1), in[1]); },
                  {leaf64({4, 3}, 18), leaf64({4}, 19)}));
  CHECK(throws_with([] { layer_norm(zeros({2, 3}), {4}); }, {"[layer_norm]", "(4,)", "(2, 3)"}));
  CHECK(throws_with([] { layer_norm(zeros({2, 3}), {3}, zeros({4})); }, {"[layer_norm]", "weight", "(4,)"}));
  CHECK(throws_with([] { rms_norm(zeros({2, 3}), zeros({2})); }, {"[rms_norm]", "weight", "(2,)"}));
}

// Both outputs of add_layer_norm, their sum's gradient flowing through the norm and straight on.
struct AddNormRun {
  Tensor sum, out, gx, gr, gw, gb;
};
AddNormRun run_add_layer_norm(bool fused, const Inputs& in, const Tensor& u1, const Tensor& u2) {
  std::vector<Tensor> xs;
  for (const Tensor& t : in) xs.push_back(t.detach().clone().requires_grad_(true));
  auto [s, o] = fused ? add_layer_norm(xs[0], xs[1], {xs[0].size(-1)}, xs[2], xs[3], 1e-5)
                      : detail::add_layer_norm_composed(xs[0], xs[1], {xs[0].size(-1)}, xs[2], xs[3], 1e-5);
  add(sum(mul(s, u1)), sum(mul(o, u2))).backward();
  return {s.detach(), o.detach(), xs[0].grad(), xs[1].grad(), xs[2].grad(), xs[3].grad()};
}

TEST_CASE("add_layer_norm: bit for bit add then layer_norm, forward and backward, gradcheck, errors") {
  // float32 rows of 300 (SIMD body and tail) and 5: the fused pass rounds exactly as the add and
  // layer_norm kernels do, so every output and gradient is identical, not merely close.
  for (int64_t d : {300, 5}) {
    CAPTURE(d);
    const DType f32 = DType::Float32;
    Inputs in{normal({2, 37, d}, 81, f32), normal({2, 37, d}, 82, f32), normal({d}, 83, f32), normal({d}, 84, f32)};
    Tensor u1 = normal({2, 37, d}, 85, f32), u2 = normal({2, 37, d}, 86, f32);
    AddNormRun f = run_add_layer_norm(true, in, u1, u2), c = run_add_layer_norm(false, in, u1, u2);
    CHECK(same_values(c.sum, f.sum));
    CHECK(same_values(c.out, f.out));
    CHECK(same_values(c.gx, f.gx));
    CHECK(same_values(c.gr, f.gr));
    CHECK(same_values(c.gw, f.gw));
    CHECK(same_values(c.gb, f.gb));
  }
  auto both = [](const Inputs& in) {
    auto [s, o] = add_layer_norm(in[0], in[1], {4}, in[2], in[3]);
    return cat({s, o}, -1);
  };
  CHECK(gradcheck(both, {leaf64({2, 3, 4}, 21), leaf64({2, 3, 4}, 22), leaf64({4}, 23), leaf64({4}, 24)}));
  CHECK(gradcheck([](const Inputs& in) { return add_layer_norm(in[0], in[1], {4}).second; },
                  {leaf64({3, 4}, 25), leaf64({3, 4}, 26)}));
  CHECK(throws_with(
      [] {
        add_layer_norm(zeros({2, 3}), zeros({2, 4}), {3});
      },
      {"[add_layer_norm]", "(2, 3)", "(2, 4)"}));
  CHECK(throws_with(
      [] {
        add_layer_norm(zeros({2, 3}), zeros({2, 3}, {.dtype = DType::Float64}), {3});
      },
      {"[add_layer_norm]", "float64"}));
  CHECK(throws_with([] { add_layer_norm(zeros({2, 3}), zeros({2, 3}), {4}); }, {"[add_layer_norm]", "(4,)"}));
  CHECK(throws_with(
      [] {
        add_layer_norm(zeros({2, 3}), zeros({2, 3}), {3}, zeros({2}));
      },
      {"[add_layer_norm]", "weight", "(2,)"}));
}

TEST_CASE("add_rms_norm: bit for bit add then rms_norm, forward and backward, gradcheck, errors") {
  for (int64_t d : {300, 5}) {
    CAPTURE(d);
    const DType f32 = DType::Float32;
    Tensor u1 = normal({2, 37, d}, 55, f32), u2 = normal({2, 37, d}, 56, f32);
    Inputs in{normal({2, 37, d}, 51, f32), normal({2, 37, d}, 52, f32), normal({d}, 53, f32)};
    auto run = [&](bool fused) {
      std::vector<Tensor> xs;
      for (const Tensor& t : in) xs.push_back(t.detach().clone().requires_grad_(true));
      auto [s, o] =
          fused ? add_rms_norm(xs[0], xs[1], xs[2], 1e-6) : detail::add_rms_norm_composed(xs[0], xs[1], xs[2], 1e-6);
      add(sum(mul(s, u1)), sum(mul(o, u2))).backward();
      return std::vector<Tensor>{s.detach(), o.detach(), xs[0].grad(), xs[1].grad(), xs[2].grad()};
    };
    std::vector<Tensor> f = run(true), c = run(false);
    for (size_t i = 0; i < f.size(); ++i) {
      CAPTURE(i);
      CHECK(same_values(c[i], f[i]));
    }
  }
  CHECK(gradcheck(
      [](const Inputs& in) {
        auto [s, o] = add_rms_norm(in[0], in[1], in[2]);
        return cat({s, o}, -1);
      },
      {leaf64({2, 3, 4}, 57), leaf64({2, 3, 4}, 58), leaf64({4}, 59)}));
  CHECK(throws_with([] { add_rms_norm(zeros({2, 3}), zeros({3, 2})); }, {"[add_rms_norm]", "(2, 3)", "(3, 2)"}));
  CHECK(throws_with(
      [] {
        add_rms_norm(zeros({2, 3}), zeros({2, 3}), zeros({2}));
      },
      {"[add_rms_norm]", "weight", "(2,)"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] layer_norm and rms_norm match the CPU") {
  announce_targets();
  Tensor x = normal({4, 3, 10}, 71), w = normal({10}, 72), b = normal({10}, 73);
  check_against_cpu("layer_norm affine", [](auto& in) { return layer_norm(in[0], {10}, in[1], in[2]); }, {x, w, b});
  check_against_cpu("layer_norm weight only", [](auto& in) { return layer_norm(in[0], {10}, in[1]); }, {x, w});
  check_against_cpu("layer_norm plain", [](auto& in) { return layer_norm(in[0], {3, 10}); }, {x});
  check_against_cpu("rms_norm", [](auto& in) { return rms_norm(in[0], in[1]); }, {x, w});
  check_against_cpu("rms_norm plain", [](auto& in) { return rms_norm(in[0]); }, {x});
  // Long rows (a block per row) and many rows (several column-sum chunks); float32.
  Tensor xl = normal({300, 1100}, 74, DType::Float32), wl = normal({1100}, 75, DType::Float32);
  Tensor bl = normal({1100}, 76, DType::Float32);
  check_against_cpu(
      "layer_norm long rows", [](auto& in) { return layer_norm(in[0], {1100}, in[1], in[2]); }, {xl, wl, bl}, 1e-10);
  check_against_cpu(
      "rms_norm long rows", [](auto& in) { return rms_norm(in[0], in[1]); }, {xl, wl}, 1e-10);
}

TEST_CASE("[cuda] add_layer_norm and add_rms_norm match the CPU and equals the composition on every target") {
  announce_targets();
  auto both = [](auto& in) {
    auto [s, o] = add_layer_norm(in[0], in[1], {in[0].size(-1)}, in[2], in[3]);
    return cat({s, o}, -1);
  };
  Tensor x = normal({4, 3, 10}, 91), r = normal({4, 3, 10}, 92), w = normal({10}, 93), b = normal({10}, 94);
  check_against_cpu("add_layer_norm", both, {x, r, w, b});
  Tensor xl = normal({30, 1100}, 95, DType::Float32), rl = normal({30, 1100}, 96, DType::Float32);
  Tensor wl = normal({1100}, 97, DType::Float32), bl = normal({1100}, 98, DType::Float32);
  check_against_cpu("add_layer_norm long rows", both, {xl, rl, wl, bl}, 1e-10);
  // On the CUDA kernels too, the fused pass is the add then layer_norm kernels bit for bit.
  for_each_device([&](const Target& t) {
    CAPTURE(t.name);
    Tensor xd = xl.to(t.device), rd = rl.to(t.device), wd = wl.to(t.device), bd = bl.to(t.device);
    auto [s, o] = add_layer_norm(xd, rd, {1100}, wd, bd);
    auto [cs, co] = detail::add_layer_norm_composed(xd, rd, {1100}, wd, bd, 1e-5);
    CHECK(same_values(cs.to(Device::cpu()), s.to(Device::cpu())));
    CHECK(same_values(co.to(Device::cpu()), o.to(Device::cpu())));
    auto [rs, ro] = add_rms_norm(xd, rd, wd);
    auto [crs, cro] = detail::add_rms_norm_composed(xd, rd, wd, 1e-6);
    CHECK(same_values(crs.to(Device::cpu()), rs.to(Device::cpu())));
    CHECK(same_values(cro.to(Device::cpu()), ro.to(Device::cpu())));
  });
  check_against_cpu("add_rms_norm",
                    [](auto& in) {
                      auto [s, o] = add_rms_norm(in[0], in[1], in[2]);
                      return cat({s, o}, -1);
                    },
                    {x, r, w});
}

}  // namespace cuda_cases
