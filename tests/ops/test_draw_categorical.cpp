// draw_categorical (ops/draw_categorical.h): the draw against a plain reference (sort-based top-k,
// running sum), its frequencies, its errors, and the CUDA kernel (host twins, a GPU when there is
// one) drawing the CPU's columns.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "harmonic/core/factories.h"
#include "harmonic/ops/draw_categorical.h"
#include "tests/device_harness.h"
#include "tests/helpers.h"

using namespace hm;
using hm::test::throws_with;

namespace {

// The definition, written the obvious way: keep w >= the k-th largest (std::nth_element), total
// in column order, first running total above u * total.
std::vector<int64_t> reference_draw(const std::vector<double>& w, int64_t n, int64_t m, const std::vector<double>& u,
                                    int64_t top_k, std::vector<double>* pmf) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (pmf) pmf->assign(static_cast<size_t>(n * m), 0.0);
  for (int64_t r = 0; r < n; ++r) {
    std::vector<double> row(w.begin() + r * m, w.begin() + (r + 1) * m);
    if (top_k > 0 && top_k < m) {
      std::vector<double> sorted = row;
      std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<>());
      for (double& x : row)
        if (x < sorted[static_cast<size_t>(top_k - 1)]) x = 0;
    }
    double total = 0;
    for (double x : row) total += x;
    double acc = 0;
    int64_t pick = -1;
    for (int64_t j = 0; j < m; ++j)
      if (row[j] > 0) {
        pick = j;
        if ((acc += row[j]) > u[r] * total) break;
      }
    out[r] = pick;
    if (pmf)
      for (int64_t j = 0; j < m; ++j) (*pmf)[r * m + j] = row[j] / total;
  }
  return out;
}

// Weights in {0, 1, 2, 3} (ties and zeros for top-k), a one-hot row, a nearly flat row, and a
// positive weight in every row.
Tensor tied_weights(int64_t n, int64_t m, DType dt) {
  std::vector<double> v(static_cast<size_t>(n * m));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < m; ++j) v[r * m + j] = static_cast<double>((j * 7 + r * 3 + (j * r) % 5) % 4);
  for (int64_t j = 0; j < m; ++j) v[j] = j == m / 2 ? 1.0 : 0.0;
  if (n > 1)
    for (int64_t j = 0; j < m; ++j) v[m + j] = 1.0 + 1e-6 * static_cast<double>(j);
  for (int64_t r = 2; r < n; ++r) v[r * m + r % m] += 1.0;
  return from_vector(v, {n, m}).to(dt);
}

}  // namespace

TEST_CASE("draw_categorical draws the reference's columns and pmfs, with and without top_k") {
  Generator g(3);
  for (DType dt : {DType::Float64, DType::Float32}) {
    for (int64_t m : {1, 2, 7, 300}) {
      const int64_t n = 33;
      const Tensor w = m > 2 ? tied_weights(n, m, dt) : add(rand({n, m}, {.dtype = dt}, &g), 0.1);
      const std::vector<double> wv = w.to(DType::Float64).to_vector();
      const Tensor u = rand({n}, {.dtype = DType::Float64}, &g);
      const std::vector<double> uv = u.to_vector();
      for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{3}, m, m + 4}) {
        INFO(dtype_name(dt), " m ", m, " top_k ", k);
        std::vector<double> ref_pmf;
        const std::vector<int64_t> ref = reference_draw(wv, n, m, uv, k, &ref_pmf);
        const CategoricalDraw d = draw_categorical(w, u, k, true);
        CHECK(d.index.to_vector_as<int64_t>() == ref);
        CHECK(d.pmf.to_vector() == ref_pmf);
        CHECK_FALSE(draw_categorical(w, u, k).pmf.defined());
      }
    }
  }
}

TEST_CASE("draw_categorical's frequencies follow the weights, and top_k removes the rest") {
  const int64_t n = 40000;
  Tensor w = expand(from_vector(std::vector<double>{1, 0, 3, 4, 2}, {1, 5}), {n, 5});
  Generator g(9);
  const Tensor u = rand({n}, {.dtype = DType::Float64}, &g);
  std::vector<int64_t> counts(5);
  for (int64_t i : draw_categorical(w, u).index.to_vector_as<int64_t>()) ++counts[static_cast<size_t>(i)];
  CHECK(counts[1] == 0);
  for (int j : {0, 2, 3, 4})  // binomial std <= 0.0025 of n
    CHECK(std::abs(static_cast<double>(counts[j]) / n - std::vector<double>{0.1, 0, 0.3, 0.4, 0.2}[j]) < 0.01);
  std::vector<int64_t> top2(5);
  for (int64_t i : draw_categorical(w, u, 2).index.to_vector_as<int64_t>()) ++top2[static_cast<size_t>(i)];
  CHECK(top2[0] + top2[1] + top2[4] == 0);
  CHECK(std::abs(static_cast<double>(top2[3]) / n - 4.0 / 7.0) < 0.01);
}

TEST_CASE("draw_categorical names bad rows, shapes, dtypes and devices") {
  const Tensor u = zeros({2}, {.dtype = DType::Float64});
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {-1.0, nan, inf}) {
    CAPTURE(bad);
    CHECK(throws_with([&] { draw_categorical(from_vector(std::vector<double>{1, 2, bad, 1}, {2, 2}), u); },
                      {"[draw_categorical] row 1 of the weights"}));
  }
  CHECK(throws_with([&] { draw_categorical(zeros({2, 3}), u); }, {"row 0 of the weights"}));
  CHECK(throws_with([&] { draw_categorical(ones({2}), u); }, {"weights must be float32 or float64 (N, M)"}));
  CHECK(throws_with([&] { draw_categorical(ones({2, 3}, {.dtype = DType::Int64}), u); }, {"weights must be float32"}));
  CHECK(throws_with([&] { draw_categorical(ones({2, 0}), u); }, {"have no columns"}));
  CHECK(throws_with([&] { draw_categorical(ones({3, 2}), u); }, {"u must be float64 (N) with N = 3"}));
  CHECK(throws_with([&] { draw_categorical(ones({2, 2}), zeros({2})); }, {"u must be float64"}));
  CHECK(throws_with([&] { draw_categorical(ones({2, 2}), u, -1); }, {"top_k must be >= 0"}));
  CHECK(draw_categorical(ones({0, 3}), zeros({0}, {.dtype = DType::Float64})).index.numel() == 0);
}

TEST_CASE("[cuda] draw_categorical's CUDA kernel draws the CPU's columns and pmfs") {
  test::announce_targets();
  Generator g(21);
  for (DType dt : {DType::Float32, DType::Float64}) {
    const Tensor w = add(rand({50, 257}, {.dtype = dt}, &g), 0.01);
    const Tensor u = rand({50}, {.dtype = DType::Float64}, &g);
    for (int64_t k : {0, 50}) {
      const CategoricalDraw cpu = draw_categorical(w, u, k, true);
      test::for_each_device([&](const test::Target& t) {
        INFO(t.name, " ", dtype_name(dt), " top_k ", k);
        const CategoricalDraw got = draw_categorical(w.to(t.device), u.to(t.device), k, true);
        CHECK(got.index.to(Device::cpu()).to_vector_as<int64_t>() == cpu.index.to_vector_as<int64_t>());
        CHECK(got.pmf.to(Device::cpu()).to_vector() == cpu.pmf.to_vector());
        CHECK(throws_with([&] { draw_categorical(zeros({2, 3}, {.device = t.device}),
                                                 zeros({2}, {.dtype = DType::Float64, .device = t.device})); },
                          {"row 0 of the weights"}));
      });
    }
  }
}
