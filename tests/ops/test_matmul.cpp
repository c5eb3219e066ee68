// matmul and linear: values vs PyTorch 1.13, gradcheck over every rank combination, views
// passed to BLAS without copies, and error messages.
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/matmul.h"
#include "harmonic/ops/matmul_kernels.h"
#include "harmonic/ops/nn_functional.h"
#include "harmonic/ops/reduce.h"
#include "harmonic/ops/scaled_dot_product_attention.h"
#include "harmonic/ops/shape_ops.h"
#include "harmonic/optim/optim_kernels.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"
#include "tests/ops/shared_inputs.h"

namespace cpu_cases {

using namespace hm;
using namespace hm::test;  // lin: torch.linspace(lo, hi, numel, dtype=float64).reshape(shape)

// Reference: /usr/bin/python3 with torch 1.13, L(a,b,*s) = torch.linspace(a,b,prod(s),dtype=float64).reshape(s):
//   L(-1,1,2,3)@L(-2,1,3,4); L(-1,1,5)@L(0,2,5); L(-1,1,2,1,2,3)@L(-2,1,3,3,2);
//   L(0.5,2,3)@L(-2,1.5,2,3,2); L(-2,1,2,2,3)@L(-1,0.3,3); F.linear(L(-1,1,2,2,3), L(-2,1,4,3), L(0,1,4))
TEST_CASE("matmul: values vs PyTorch for every rank combination") {
  CHECK(allclose(matmul(lin(-1, 1, {2, 3}), lin(-2, 1, {3, 4})),
                 {2.50909091, 2.01818182, 1.52727273, 1.03636364, -0.76363636, -0.27272727, 0.21818182, 0.70909091}));
  Tensor dot = matmul(lin(-1, 1, {5}), lin(0, 2, {5}));
  CHECK(dot.shape() == Shape{});
  CHECK(allclose(dot, {2.5}));
  Tensor bc = matmul(lin(-1, 1, {2, 1, 2, 3}), lin(-2, 1, {3, 3, 2}));
  CHECK(bc.shape() == Shape{2, 3, 2, 2});
  CHECK(allclose(bc, {4.17112299,  3.73796791,  1.47593583,  1.3315508,   1.57219251,  1.13903743,
                      0.60962567,  0.46524064,  -1.02673797, -1.45989305, -0.25668449, -0.40106952,
                      -1.21925134, -1.07486631, -3.9144385,  -3.48128342, -0.35294118, -0.20855615,
                      -1.31550802, -0.88235294, 0.51336898,  0.65775401,  1.28342246,  1.71657754}));
  Tensor v3 = matmul(lin(0.5, 2, {3}), lin(-2, 1.5, {2, 3, 2}));
  CHECK(v3.shape() == Shape{2, 2});
  CHECK(allclose(v3, {-4.15909091, -2.96590909, 3.0, 4.19318182}));
  Tensor m3v = matmul(lin(-2, 1, {2, 2, 3}), lin(-1, 0.3, {3}));
  CHECK(m3v.shape() == Shape{2, 2});
  CHECK(allclose(m3v, {2.16818182, 1.30909091, 0.45, -0.40909091}));
  Tensor lin_out = linear(lin(-1, 1, {2, 2, 3}), lin(-2, 1, {4, 3}), lin(0, 1, {4}));
  CHECK(lin_out.shape() == Shape{2, 2, 4});
  CHECK(allclose(lin_out, {4.33884298, 2.66391185, 0.98898072, -0.68595041, 1.51239669, 1.17630854, 0.84022039,
                           0.50413223, -1.31404959, -0.31129477, 0.69146006, 1.69421488, -4.14049587, -1.79889807,
                           0.54269972, 2.88429752}));
}

TEST_CASE("matmul: float32 agrees with float64, views agree with copies") {
  Generator gen(3);
  Tensor a = randn({3, 40, 24}, {.dtype = DType::Float64}, &gen), b = randn({24, 33}, {.dtype = DType::Float64}, &gen);
  Tensor ref = matmul(a, b);
  CHECK(allclose(matmul(a.to(DType::Float32), b.to(DType::Float32)), ref, 1e-4, 1e-4));
  // Transposed and permuted views go to BLAS as trans flags; stepped slices get copied.
  Tensor at = transpose(a.clone(), 1, 2).contiguous();  // (3, 24, 40)
  CHECK(allclose(matmul(transpose(at, 1, 2), b), ref, 1e-12, 1e-12));
  Tensor bt = transpose(b, 0, 1).contiguous();  // (33, 24)
  CHECK(allclose(matmul(a, transpose(bt, 0, 1)), ref, 1e-12, 1e-12));
  Tensor ap = permute(a.contiguous(), {1, 0, 2}).contiguous();  // (40, 3, 24): a batch dim that does not fold
  CHECK(allclose(matmul(permute(ap, {1, 0, 2}), b), ref, 1e-12, 1e-12));
  Tensor wide = randn({3, 40, 48}, {.dtype = DType::Float64}, &gen);
  Tensor stepped = slice(wide, 2, 0, 48, 2);  // column stride 2: not BLAS-readable
  CHECK(allclose(matmul(stepped, b), matmul(stepped.contiguous(), b), 1e-12, 1e-12));
  // Batched results do not depend on the thread count.
  Tensor x = randn({8, 16, 16}, {}, &gen), y = randn({8, 16, 16}, {}, &gen);
  set_num_threads(1);
  Tensor one = matmul(x, y);
  set_num_threads(2);
  CHECK(allclose(matmul(x, y), one, 0, 0));
}

TEST_CASE("matmul: empty dims, strided vectors, expanded batches") {
  CHECK(matmul(zeros({0, 3}), zeros({3, 4})).shape() == Shape{0, 4});
  CHECK(allclose(matmul(ones({2, 0}), ones({0, 3})), zeros({2, 3})));  // k = 0: a sum of nothing
  CHECK(matmul(zeros({2, 0, 3}), zeros({3, 5})).shape() == Shape{2, 0, 5});
  Tensor m = lin(-1, 1, {3, 4});
  Tensor v = slice(lin(0, 1, {8}), 0, 0, 8, 2);  // stride 2
  CHECK(allclose(matmul(m, v), matmul(m, v.contiguous()), 1e-12, 1e-12));
  CHECK(allclose(matmul(v, transpose(m, 0, 1)), matmul(m, v.contiguous()), 1e-12, 1e-12));
  Tensor e = expand(lin(-1, 1, {1, 2, 3}), {4, 2, 3});  // batch stride 0
  Tensor b = lin(0, 2, {4, 3, 2});
  CHECK(allclose(matmul(e, b), matmul(e.contiguous(), b), 1e-12, 1e-12));
  // A gradient that arrives non-contiguous (an expanded sum gradient) still works.
  Tensor a = leaf64({2, 3}, 1), w = leaf64({3, 4}, 2);
  sum(matmul(a, w)).backward();
  CHECK(allclose(a.grad(), expand(sum(w, {1}), {2, 3}), 1e-12, 1e-12));
}

TEST_CASE("matmul: gradcheck over rank combinations and broadcast batches") {
  auto mm = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); };
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{4}, {4}},          {{4}, {4, 3}},          {{2, 4}, {4}},          {{2, 4}, {4, 3}},
      {{2, 2, 4}, {4, 3}}, {{4}, {2, 4, 3}},       {{2, 3, 4}, {4}},       {{2, 1, 2, 4}, {3, 4, 2}},
      {{2, 4}, {3, 4, 2}}, {{3, 2, 4}, {1, 4, 2}}, {{1, 3, 4}, {2, 1, 4, 2}}};
  uint64_t seed = 10;
  for (const auto& entry : cases) {
    const auto& sa = std::get<0>(entry);
    const auto& sb = std::get<1>(entry);
    CAPTURE(str(sa));
    CAPTURE(str(sb));
    CHECK(gradcheck(mm, {leaf64(sa, seed++), leaf64(sb, seed++)}));
  }
  // Non-contiguous inputs: transposed, permuted and stepped views inside the function.
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return matmul(transpose(in[0], 0, 1), transpose(in[1], 0, 1)); },
                  {leaf64({4, 3}, 1), leaf64({2, 4}, 2)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return matmul(permute(in[0], {1, 0, 2}), in[1]); },
                  {leaf64({3, 2, 4}, 3), leaf64({4, 2}, 4)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return matmul(slice(in[0], 2, 0, 6, 2), in[1]); },
                  {leaf64({2, 3, 6}, 5), leaf64({2, 3, 2}, 6)}));
}

TEST_CASE("linear: gradcheck with and without bias, 1-d and batched inputs") {
  auto with_bias = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
  auto no_bias = [](const std::vector<Tensor>& in) { return linear(in[0], in[1]); };
  CHECK(gradcheck(with_bias, {leaf64({2, 3, 4}, 1), leaf64({5, 4}, 2), leaf64({5}, 3)}));
  CHECK(gradcheck(with_bias, {leaf64({4}, 4), leaf64({2, 4}, 5), leaf64({2}, 6)}));
  CHECK(gradcheck(no_bias, {leaf64({3, 4}, 7), leaf64({2, 4}, 8)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return linear(transpose(in[0], 0, 1), in[1], in[2]); },
                  {leaf64({4, 3}, 9), leaf64({2, 4}, 10), leaf64({2}, 11)}));
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return linear(permute(in[0], {1, 0, 2}), in[1], in[2]); },
                  {leaf64({3, 2, 4}, 12), leaf64({2, 4}, 13), leaf64({2}, 14)}));
  // linear == matmul(x, W^T) + b
  Tensor x = lin(-1, 1, {2, 3, 4}), w = lin(-2, 2, {5, 4}), b = lin(0, 1, {5});
  CHECK(allclose(linear(x, w, b), add(matmul(x, transpose(w, 0, 1)), b), 1e-12, 1e-12));
}

TEST_CASE("matmul and linear: bad inputs name the shapes") {
  Tensor a = zeros({2, 3}), b = zeros({4, 5});
  CHECK(throws_with([&] { matmul(a, b); }, {"[matmul]", "(2, 3)", "(4, 5)"}));
  CHECK(throws_with([&] { matmul(zeros({2, 2, 3}), zeros({3, 3, 4})); }, {"[matmul]", "(2, 2, 3)", "(3, 3, 4)"}));
  CHECK(throws_with([&] { matmul(a, zeros({3, 2}, {.dtype = DType::Float64})); }, {"[matmul]", "float32", "float64"}));
  CHECK(throws_with([&] { matmul(zeros({2, 3}, {.dtype = DType::Int64}), zeros({3, 2}, {.dtype = DType::Int64})); },
                    {"[matmul]", "int64"}));
  CHECK(throws_with([&] { matmul(zeros({}), zeros({3})); }, {"[matmul]", "()"}));
  CHECK(throws_with([&] { linear(zeros({2, 3}), zeros({4, 5})); }, {"[linear]", "(2, 3)", "(4, 5)"}));
  CHECK(throws_with([&] { linear(zeros({2, 5}), zeros({4, 5}), zeros({3})); }, {"[linear]", "(3,)", "(4, 5)"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] matmul and linear match the CPU") {
  announce_targets();
  auto transposed = [](const Tensor& x) { return view(x, {x.size(1), x.size(0)}, {1, x.size(1)}); };
  check_against_cpu("mm", [](auto& x) { return matmul(x[0], x[1]); }, {normal({5, 7}, 1), normal({7, 3}, 2)});
  check_against_cpu("mm transposed operands", [&](auto& x) { return matmul(transposed(x[0]), transposed(x[1])); },
                    {normal({7, 5}, 3), normal({3, 7}, 4)});
  check_against_cpu("vector @ matrix", [](auto& x) { return matmul(x[0], x[1]); }, {normal({4}, 5), normal({4, 6}, 6)});
  check_against_cpu("matrix @ vector", [](auto& x) { return matmul(x[0], x[1]); }, {normal({6, 4}, 7), normal({4}, 8)});
  // One batch dim (cuBLAS's strided batch), broadcast (stride 0), and two batch dims that do
  // not merge (the host loop over the outer one).
  check_against_cpu("batched", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({3, 4, 5}, 9), normal({3, 5, 2}, 10)});
  check_against_cpu("broadcast batch", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({3, 4, 5}, 11), normal({5, 2}, 12)});
  check_against_cpu("two batch dims", [](auto& x) { return matmul(x[0], x[1]); },
                    {normal({2, 1, 4, 5}, 13), normal({3, 5, 6}, 14)});
  check_against_cpu("empty inner dim", [](auto& x) { return matmul(x[0], x[1]); }, {zeros({3, 0}), zeros({0, 4})});
  check_against_cpu("linear with bias", [](auto& x) { return linear(x[0], x[1], x[2]); },
                    {normal({2, 3, 5}, 15), normal({4, 5}, 16), normal({4}, 17)});
  check_against_cpu(
      "linear float32", [](auto& x) { return linear(x[0], x[1]); },
      {normal({6, 5}, 18, DType::Float32), normal({3, 5}, 19, DType::Float32)}, 1e-10);
}

#ifdef HARMONIC_WITH_CUDA
TEST_CASE("[cuda] bfloat16 GEMM host twin: bf16-rounded inputs, float32 accumulation") {
  // The mixed GEMM of autocast (GemmDesc dtype BFloat16: A, B bf16; C, bias float32) run by
  // its host twin, against a float64 product of the same bf16-rounded values. Only the
  // float32 accumulation differs: normalised error ~1e-14, checked at 1e-11.
  Tensor a = normal({2, 5, 33}, 21, DType::Float32), b = normal({33, 7}, 22, DType::Float32);
  Tensor bias = normal({7}, 23, DType::Float32);
  Tensor a16 = a.to(DType::BFloat16), b16 = b.to(DType::BFloat16);
  Tensor ref = add(matmul(a16.to(DType::Float64), b16.to(DType::Float64)), bias.to(DType::Float64));
  Tensor got = zeros({2, 5, 7});
  GemmDesc d;
  d.dtype = DType::BFloat16;
  d.m = 5, d.n = 7, d.k = 33;
  d.a = a16.raw_data(), d.lda = 33;
  d.b = b16.raw_data(), d.ldb = 7;
  d.c = got.raw_data(), d.ldc = 7;
  d.bias = bias.raw_data();
  d.batch = {2}, d.batch_a = {5 * 33}, d.batch_b = {0}, d.batch_c = {5 * 7};
  {
    cuda::HostEmulation twins;
    gemm_kernel(Device::cpu(), d);
  }
  check_close(ref, got.to(DType::Float64), "bf16 gemm twin", 1e-11);
  // bf16 rounding itself is far from free: against the unrounded product the error is ~1e-5.
  CHECK(normalized_error(add(matmul(a, b), bias).to(DType::Float64), got.to(DType::Float64)) > 1e-8);
}
#endif

}  // namespace cuda_cases
