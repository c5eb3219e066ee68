// Result dtypes and values of tensor-with-number arithmetic and comparisons on integer and bool
// tensors. Expected values follow PyTorch's documented promotion rules (torch.result_type and
// the "Type promotion" notes): a number counts only when its category (bool < integer <
// floating) is above the tensor's, a floating number lifts to the default dtype float32, and
// true division `/` lifts integer and bool tensors to float32. Each expectation below is what
//   x = torch.arange(5); b = torch.tensor([True, False, True])
// gives in PyTorch for the same expression (e.g. x * 0.3 -> float32 [0, 0.3, 0.6, 0.9, 1.2]).
#include <vector>

#include "tests/helpers.h"

using namespace hm;
using hm::test::allclose;
using hm::test::throws_with;

namespace {

Tensor bools() { return tensor({1, 0, 1}, {3}, {.dtype = DType::Bool}); }

void check_result(const Tensor& t, DType dtype, const std::vector<double>& expected) {
  CHECK(dtype_name(t.dtype()) == dtype_name(dtype));
  CHECK(allclose(t, expected));
}

std::vector<double> as_doubles(const Tensor& t) { return t.to_vector(); }

}  // namespace

TEST_CASE("scalar promotion: integer tensor with a floating number gives float32") {
  const Tensor x = arange(5);
  check_result(x * 0.3, DType::Float32, {0, 0.3, 0.6, 0.9, 1.2});
  check_result(x + 0.5, DType::Float32, {0.5, 1.5, 2.5, 3.5, 4.5});
  check_result(x - 0.5, DType::Float32, {-0.5, 0.5, 1.5, 2.5, 3.5});
  check_result(x / 2.0, DType::Float32, {0, 0.5, 1, 1.5, 2});
  check_result(0.5 * x, DType::Float32, {0, 0.5, 1, 1.5, 2});
  check_result(0.5 + x, DType::Float32, {0.5, 1.5, 2.5, 3.5, 4.5});
  check_result(2.5 - x, DType::Float32, {2.5, 1.5, 0.5, -0.5, -1.5});  // rsub
  check_result(mul(x, 0.25f), DType::Float32, {0, 0.25, 0.5, 0.75, 1});
}

TEST_CASE("scalar promotion: integer tensor with an integer number stays int64, except /") {
  const Tensor x = arange(5);
  check_result(x * 2, DType::Int64, {0, 2, 4, 6, 8});
  check_result(x + int64_t{2}, DType::Int64, {2, 3, 4, 5, 6});
  check_result(x - 2, DType::Int64, {-2, -1, 0, 1, 2});
  check_result(3 - x, DType::Int64, {3, 2, 1, 0, -1});
  check_result(1 + x, DType::Int64, {1, 2, 3, 4, 5});
  check_result(2 * x, DType::Int64, {0, 2, 4, 6, 8});
  check_result(x * true, DType::Int64, {0, 1, 2, 3, 4});
  check_result(x / 2, DType::Float32, {0, 0.5, 1, 1.5, 2});  // true division, as torch.div
  check_result(div(x, int64_t{4}), DType::Float32, {0, 0.25, 0.5, 0.75, 1});
}

TEST_CASE("scalar promotion: bool tensor with numbers") {
  const Tensor b = bools();
  check_result(b + 1, DType::Int64, {2, 1, 2});
  check_result(b - 1, DType::Int64, {0, -1, 0});
  check_result(b * 3, DType::Int64, {3, 0, 3});
  check_result(b * 0.5, DType::Float32, {0.5, 0, 0.5});
  check_result(b + 0.25, DType::Float32, {1.25, 0.25, 1.25});
  check_result(b / 2, DType::Float32, {0.5, 0, 0.5});
  check_result(b / true, DType::Float32, {1, 0, 1});
  // PyTorch gives bool for b + True (logical or); Harmonic has no bool arithmetic and says so.
  CHECK(throws_with([&] { (void)(b + true); }, {"add", "bool"}));
}

TEST_CASE("scalar promotion: floating tensors keep their dtype") {
  for (DType dt : {DType::Float32, DType::Float64}) {
    const Tensor f = arange(0.0, 4.0, 1.0, {.dtype = dt});
    check_result(f * 2, dt, {0, 2, 4, 6});
    check_result(f / 2, dt, {0, 0.5, 1, 1.5});
    check_result(f + 0.5, dt, {0.5, 1.5, 2.5, 3.5});
    check_result(1 - f, dt, {1, 0, -1, -2});
  }
}

TEST_CASE("scalar promotion: comparisons compare in the promoted dtype") {
  const Tensor x = arange(5);
  // Before: 2.5 was cast to int64 (2), so x < 2.5 missed 2 and x == 2.5 matched it.
  CHECK(as_doubles(lt(x, 2.5)) == std::vector<double>{1, 1, 1, 0, 0});
  CHECK(as_doubles(le(x, 2.5)) == std::vector<double>{1, 1, 1, 0, 0});
  CHECK(as_doubles(gt(x, 1.5)) == std::vector<double>{0, 0, 1, 1, 1});
  CHECK(as_doubles(ge(x, 1.5)) == std::vector<double>{0, 0, 1, 1, 1});
  CHECK(as_doubles(eq(x, 2.5)) == std::vector<double>{0, 0, 0, 0, 0});
  CHECK(as_doubles(ne(x, 2.5)) == std::vector<double>{1, 1, 1, 1, 1});
  CHECK(as_doubles(eq(x, 2)) == std::vector<double>{0, 0, 1, 0, 0});
  CHECK(as_doubles(lt(x, -1)) == std::vector<double>{0, 0, 0, 0, 0});
  const Tensor b = bools();
  CHECK(as_doubles(eq(b, 1)) == std::vector<double>{1, 0, 1});
  CHECK(as_doubles(lt(b, 0.5)) == std::vector<double>{0, 1, 0});
  CHECK(as_doubles(eq(b, true)) == std::vector<double>{1, 0, 1});
  CHECK(as_doubles(gt(b, false)) == std::vector<double>{1, 0, 1});
  for (const Tensor& t : {lt(x, 2.5), eq(b, 1), ne(x, 1)}) CHECK(t.dtype() == DType::Bool);
}

TEST_CASE("scalar promotion: mixing tensor dtypes is still an error") {
  const Tensor x = arange(3);
  const Tensor f = arange(0.0, 3.0, 1.0, {.dtype = DType::Float32});
  CHECK(throws_with([&] { (void)(x + f); }, {"add", "dtype mismatch", "int64", "float32"}));
  CHECK(throws_with([&] { (void)lt(x, f); }, {"lt", "dtype mismatch"}));
}

TEST_CASE("scalar promotion: gradients through a floating tensor and a number") {
  Tensor w = arange(0.0, 3.0, 1.0, {.dtype = DType::Float64}).requires_grad_(true);
  sum(mul(w, 3)).backward();  // an integer number keeps float64 and its gradient
  CHECK(w.grad().dtype() == DType::Float64);
  CHECK(allclose(w.grad(), {3, 3, 3}));
}
