// The op table and runner behind `harmonic op`: every case of tests/reference/ops_reference.safetensors
// (PyTorch 1.13 forward + backward, written by tests/reference/make_op_references.py) run through
// the table must match outputs and input gradients; the file round trip; clear errors.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "harmonic/core/safetensors.h"
#include "harmonic/ops/registry/run_op.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::ops;
using hm::test::allclose;
using hm::test::throws_with;

namespace {

const std::string kReference = std::string(HARMONIC_SOURCE_DIR) + "/tests/reference/ops_reference.safetensors";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / fmt::format("harmonic_op_{}_{}", ::getpid(), name)).string();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Tolerances of the assignment: rtol 1e-5 in float64, 1e-4 in float32.
bool matches(const Tensor& got, const Tensor& want) {
  CHECK(got.dtype() == want.dtype());
  bool f32 = want.dtype() == DType::Float32;
  return allclose(got, want, f32 ? 1e-4 : 1e-5, f32 ? 1e-5 : 1e-9);
}

}  // namespace

TEST_CASE("op runner: every PyTorch reference case matches outputs and gradients") {
  SafetensorsFile ref = load_safetensors(kReference);
  std::set<std::string> families;
  int cases = 0;
  for (const auto& [key, value] : ref.metadata) {
    if (!starts_with(key, "case:")) continue;
    const std::string name = key.substr(5);
    Json meta = Json::parse(value);
    const OpSpec& spec = find_op(meta.at("op").get<std::string>());
    families.insert(spec.family);
    // inputs and grad_output go in; output and grad_* are the expected results
    NamedTensors inputs, expected;
    for (const auto& [tname, t] : ref.tensors) {
      if (!starts_with(tname, name + "/")) continue;
      std::string local = tname.substr(name.size() + 1);
      bool result = local == "output" || (starts_with(local, "grad_") && local != "grad_output");
      (result ? expected : inputs).emplace_back(local, t);
    }
    CAPTURE(name);
    OpRun run = run_op(spec, inputs, meta.at("attrs"));
    CHECK(run.unused.empty());
    CHECK(run.grads.size() + 1 == expected.size());
    for (const auto& entry : expected) {
      const auto& ename = std::get<0>(entry);
      const auto& want = std::get<1>(entry);
      CAPTURE(ename);
      const Tensor* got = &run.output;
      if (ename != "output") {
        got = nullptr;
        for (const auto& [gname, g] : run.grads)
          if (gname == ename) got = &g;
      }
      REQUIRE(got != nullptr);
      CHECK(matches(*got, want));
    }
    ++cases;
  }
  CHECK(cases >= 15);
  CHECK(families == std::set<std::string>{"elementwise", "reduce", "shape", "indexing", "linalg", "nn"});
}

TEST_CASE("op runner: `harmonic op` file round trip") {
  Generator gen(3);
  Tensor x = randn({4, 6}, {.dtype = DType::Float64}, &gen);
  Tensor target = from_vector(std::vector<int64_t>{0, 5, 2, 2}, {4});
  Tensor go = scalar_tensor(0.5, {.dtype = DType::Float64});
  std::string in = temp_path("in.safetensors"), out = temp_path("out.safetensors");
  save_safetensors(in, {{"x", x}, {"target", target}, {"grad_output", go}});
  Json attrs = {{"label_smoothing", 0.2}};
  OpRun run = run_op_file("cross_entropy", in, out, attrs);
  SafetensorsFile written = load_safetensors(out);
  REQUIRE(written.tensors.size() == 2);  // output, grad_x (target is int64: no gradient)
  CHECK(written.metadata.at("op") == "cross_entropy");
  CHECK(Json::parse(written.metadata.at("attrs")).at("label_smoothing") == 0.2);
  CHECK(allclose(written.at("output"), run.output, 0, 0));
  CHECK(allclose(written.at("grad_x"), run.grads.at(0).second, 0, 0));
  // the same numbers as calling the op directly: grad_output 0.5 scales the gradient
  Tensor leaf = x.clone().requires_grad_(true);
  Tensor loss = cross_entropy(leaf, target, {.label_smoothing = 0.2});
  loss.backward();
  CHECK(allclose(written.at("output"), loss.detach(), 1e-12, 0));
  CHECK(allclose(written.at("grad_x"), mul(leaf.grad(), 0.5), 1e-12, 0));
  // the caller's tensors are not touched (no requires_grad, no .grad)
  CHECK(!x.requires_grad());
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

TEST_CASE("op runner: optional, variadic, multi-output and non-differentiable ops") {
  Generator gen(4);
  Tensor x = randn({2, 3}, {}, &gen), w = randn({5, 3}, {}, &gen);
  SUBCASE("linear without its optional bias") {
    OpRun run = run_op(find_op("linear"), {{"x", x}, {"w", w}});
    CHECK(allclose(run.output, matmul(x, transpose(w, 0, 1))));
    REQUIRE(run.grads.size() == 2);
    CHECK(run.grads[0].first == "grad_x");
    CHECK(run.grads[1].first == "grad_w");
  }
  SUBCASE("chunk picks one output; the other chunk's input rows get zero gradient") {
    OpRun run = run_op(find_op("chunk"), {{"x", x}}, {{"chunks", 2}, {"dim", 1}, {"index", 1}});
    CHECK(run.output.shape() == Shape{2, 1});
    CHECK(allclose(run.grads.at(0).second, {0, 0, 1, 0, 0, 1}));
  }
  SUBCASE("stack reads xs0, xs1, ...") {
    OpRun run = run_op(find_op("stack"), {{"xs0", x}, {"xs1", x}}, {{"dim", 1}});
    CHECK(run.output.shape() == Shape{2, 2, 3});
    CHECK(run.grads.size() == 2);
  }
  SUBCASE("argmax and comparisons: no backward, no gradients") {
    CHECK(run_op(find_op("argmax"), {{"x", x}}, {{"dim", 1}}).grads.empty());
    OpRun lt = run_op(find_op("lt"), {{"a", x}, {"b", x}});
    CHECK(lt.output.dtype() == DType::Bool);
    CHECK(lt.grads.empty());
  }
  SUBCASE("extra tensors are reported as unused") {
    OpRun run = run_op(find_op("relu"), {{"x", x}, {"weight", w}});
    CHECK(run.unused == std::vector<std::string>{"weight"});
  }
}

TEST_CASE("op runner: errors name the op, the input and the alternatives") {
  Tensor x = ones({2, 3});
  CHECK(throws_with([] { find_op("softmx"); }, {"unknown op 'softmx'", "did you mean softmax"}));
  CHECK(throws_with([] { find_op("crossentropy"); }, {"cross_entropy"}));
  CHECK(throws_with(
      [&] {
        run_op(find_op("cross_entropy"), {{"x", x}});
      },
      {"[op cross_entropy]", "missing input tensor 'target'", "the file has: x"}));
  CHECK(throws_with([&] { run_op(find_op("cat"), {{"x", x}}); }, {"missing input tensors 'xs0'"}));
  CHECK(throws_with(
      [&] {
        run_op(find_op("softmax"), {{"x", x}}, {{"axis", 1}});
      },
      {"unknown attribute 'axis'", "softmax accepts: dim"}));
  CHECK(throws_with(
      [&] {
        run_op(find_op("softmax"), {{"x", x}}, {{"dim", "one"}});
      },
      {"[op softmax]", "'dim' must be an integer", "\"one\""}));
  CHECK(throws_with([&] { run_op(find_op("reshape"), {{"x", x}}); }, {"'shape' is required"}));
  CHECK(throws_with(
      [&] {
        run_op(find_op("split"), {{"x", x}}, {{"split_size", 1}, {"index", 5}});
      },
      {"'index' = 5 is out of range", "2 outputs"}));
  CHECK(throws_with([&] { run_op(find_op("gelu"), {{"x", x}}, {{"approximate", "fast"}}); }, {"\"fast\""}));
  CHECK(throws_with(
      [&] {
        run_op(find_op("relu"), {{"x", x}, {"grad_output", ones({3, 2})}});
      },
      {"grad_output has shape (3, 2)", "(2, 3)"}));
  CHECK(throws_with([&] { run_op_file("relu", "/nonexistent/in.safetensors", temp_path("never"), {}); },
                    {"/nonexistent/in.safetensors"}));
}

// The inferred class count max(index) + 1 must not wrap for an index of INT64_MAX.
TEST_CASE("op runner: one_hot's inferred class count of an INT64_MAX index raises, not wraps") {
  Tensor index = from_vector(std::vector<int64_t>{0, std::numeric_limits<int64_t>::max(), 2}, {3});
  CHECK(throws_with([&] { run_op(find_op("one_hot"), {{"index", index}}); }, {"[one_hot]", "overflows int64"}));
  CHECK(run_op(find_op("one_hot"), {{"index", from_vector(std::vector<int64_t>{0, 3}, {2})}}).output.shape() ==
        Shape{2, 4});
}
