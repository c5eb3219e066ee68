// embedding (and, on CUDA, dropout beside it).
// The [cuda] cases run on each target of tests/device_harness.h (a GPU when present; in CUDA
// builds always the kernels' host twins) and compare with the CPU.
#include <doctest/doctest.h>

#include "harmonic/core/factories.h"
#include "harmonic/core/philox.h"
#include "harmonic/core/random.h"
#include "harmonic/ops/autocast.h"
#include "harmonic/ops/elementwise.h"
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

TEST_CASE("embedding: gather, repeated indices and padding_idx in backward, errors") {
  Tensor w = lin(0, 11, {4, 3});
  Tensor out = embedding(w, ints({2, 0, 2, 3}, {2, 2}));
  CHECK(out.shape() == Shape{2, 2, 3});
  CHECK(allclose(out, {6, 7, 8, 0, 1, 2, 6, 7, 8, 9, 10, 11}));
  // Repeated index 2 sums its gradient rows; padding row 1 gets none.
  Tensor wl = leaf64({5, 3}, 1);
  Tensor idx = ints({2, 1, 2, 4, 2, 0, 1}, {7});
  Tensor y = embedding(wl, idx, 1);
  y.backward(lin(1, 21, {7, 3}));
  CHECK(allclose(wl.grad(), {16, 17, 18, 0, 0, 0, 21, 24, 27, 0, 0, 0, 10, 11, 12}));
  // (No gradcheck with padding_idx in use: like PyTorch, the padding row is read but gets no gradient.)
  CHECK(gradcheck([&](const Inputs& in) { return embedding(in[0], in[1]); },
                  {leaf64({4, 2}, 3), ints({3, 3, 0, 1, 3, 2}, {2, 3})}));
  // Many rows and repeats across thread chunks: matches a serial sum.
  Generator gen(5);
  Tensor many = randint(0, 50, {4000}, &gen);
  Tensor wb = zeros({50, 8}).requires_grad_(true);
  embedding(wb, many).backward(ones({4000, 8}));
  std::vector<double> counts(50, 0.0);
  for (int64_t v : many.to_vector_as<int64_t>()) counts[v] += 1;
  CHECK(allclose(select(wb.grad(), 1, 0), from_vector(counts, {50})));
  CHECK(throws_with([&] { embedding(w, ints({1, 4}, {2})); }, {"[embedding]", "index 4", "4 rows"}));
  CHECK(throws_with([&] { embedding(w, ints({-1}, {1})); }, {"[embedding]", "index -1"}));
  CHECK(throws_with([&] { embedding(w, zeros({2})); }, {"[embedding]", "int64", "float32"}));
}

}  // namespace cpu_cases

namespace cuda_cases {

using namespace hm;
using namespace hm::test;

TEST_CASE("[cuda] embedding and dropout match the CPU") {
  announce_targets();
  Tensor table = normal({9, 4}, 81);
  Tensor idx = from_vector(std::vector<int64_t>{3, 0, 3, 8, 2, 3, 5, 0}, {2, 4});  // repeats
  check_against_cpu("embedding", [&](auto& in) { return embedding(in[0], in[1]); }, {table, idx});
  check_against_cpu("embedding padding", [&](auto& in) { return embedding(in[0], in[1], 3); }, {table, idx});
  for (DType dt : {DType::Float32, DType::Float64})
    for (double p : {0.0, 0.3, 1.0})
      check_against_cpu(
          "dropout",
          [&](auto& in) {
            Generator gen(77);  // the same draw on every target
            return dropout(in[0], p, true, &gen);
          },
          {normal({5, 7, 3}, 82, dt)}, 0.0);  // masks agree bit for bit
  for_each_device([&](const Target& t) {
    Tensor bad = from_vector(std::vector<int64_t>{1, 9}, {2}).to(t.device);
    CHECK(throws_with([&] { embedding(table.to(t.device), bad); }, {"[embedding]", "index 9", "position 1"}));
  });
}

}  // namespace cuda_cases
