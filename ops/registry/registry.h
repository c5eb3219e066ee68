// A table of every op of ops/*.h under its name, behind one uniform callable
//   Tensor call(const std::vector<Tensor>& inputs, const nlohmann::json& attrs)
// plus the names of its tensor inputs, which of them are differentiable, and its attributes
// with their defaults. `harmonic op` and `harmonic bench` run ops through it, and
// tests/test_op_runner.cpp checks it against PyTorch reference values. Running
// one op from named tensors is ops/registry/run_op.h.
#pragma once
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/random.h"
#include "core/tensor.h"
#include "ops/reduce.h"

namespace hm::ops {

using Json = nlohmann::json;

// The merged attributes of one call (the op's defaults overridden by the caller's), with
// typed getters whose errors name the op and the attribute.
class Attrs {
 public:
  Attrs(std::string op, Json values) : op_(std::move(op)), values_(std::move(values)) {}
  int64_t i(const char* key) const;      // an integer
  double f(const char* key) const;       // a number, or "inf" / "-inf"
  bool b(const char* key) const;         // a boolean
  std::string s(const char* key) const;  // a string
  Dims dims(const char* key) const;      // an integer or a list of them; null or [] = all dims
  Shape shape(const char* key) const;    // a list of sizes (an integer means one dim)
  bool is_null(const char* key) const { return values_.at(key).is_null(); }
  const Json& json() const { return values_; }

 private:
  const Json& need(const char* key) const;  // throws when the value is null (a required attr)
  [[noreturn]] void bad(const char* key, const char* expected) const;
  std::string op_;
  Json values_;
};

// One tensor input, written in the table as "x" (float, differentiable), "~x" (float, not
// differentiable), "#x" (int64 indices), "!x" (bool mask), with a trailing "?" when it may be
// absent (passed as an undefined Tensor) or "*" for a list read as x0, x1, ... (cat, stack).
struct OpInput {
  enum class Kind { Float, Constant, Index, Mask };
  std::string name;
  Kind kind = Kind::Float;
  bool optional = false;
  bool variadic = false;
  bool differentiable() const { return kind == Kind::Float; }
};

using OpImpl = Tensor (*)(const std::vector<Tensor>& inputs, const Attrs& attrs);
// Exclusive upper bound for generated index inputs (bench), from the float inputs made so far.
using IndexBound = int64_t (*)(const std::vector<Tensor>& inputs, const Attrs& attrs);

struct OpSpec {
  std::string name;
  std::string family;  // elementwise, reduce, shape, indexing, linalg, nn
  std::vector<OpInput> inputs;
  Json defaults;  // every accepted attribute; null marks a required one
  OpImpl impl = nullptr;
  bool positive = false;             // generated float inputs should be > 0 (log, sqrt, ...)
  IndexBound index_bound = nullptr;  // null: indices in [0, 2)

  // Checks the attribute names against the defaults and the input count, then runs the op.
  // Variadic inputs are passed flattened (cat/stack take all of them).
  Tensor call(const std::vector<Tensor>& inputs, const Json& attrs = Json::object()) const;
  // Defaults overridden by attrs; unknown names raise an error listing the accepted ones.
  Json merge_attrs(const Json& attrs) const;
  std::string signature() const;  // "cross_entropy(x, #target) {ignore_index: -100, ...}"
  // The declaration of the k-th tensor argument (the variadic one for every k past the end).
  const OpInput& input(size_t k) const { return inputs[std::min(k, inputs.size() - 1)]; }
};

// Every op, sorted by family then name.
const std::vector<OpSpec>& op_table();
// The op called name; an unknown name raises an error suggesting the closest names.
const OpSpec& find_op(const std::string& name);
// Up to `count` table names closest to name (edit distance, prefixes and substrings first).
std::vector<std::string> close_op_names(const std::string& name, size_t count = 5);

// -- generated inputs (ops/registry/inputs.cpp) ---------------------------------------------------

// "256x1024,1024" -> {(256, 1024), (1024)}; "" or "scalar" is a 0-d tensor. And back.
std::vector<Shape> parse_shapes(const std::string& text);
std::string shapes_text(const std::vector<Shape>& shapes);
// Random inputs of the given shapes, one per tensor argument (trailing optional ones may be
// left out: they stay undefined): float ~ N(0, 1) in `dtype` (uniform in [0.5, 1.5) for
// positive-domain ops), int64 indices uniform below the op's index bound, masks Bernoulli(0.5).
std::vector<Tensor> make_inputs(const OpSpec& spec, const std::vector<Shape>& shapes, const Json& attrs, DType dtype,
                                Generator& gen);

// Table builders for each family (ops/registry/<family>.cpp).
void add_elementwise_ops(std::vector<OpSpec>& table);
void add_reduce_shape_ops(std::vector<OpSpec>& table);
void add_nn_ops(std::vector<OpSpec>& table);
// One table entry: inputs as in OpInput's comment, space separated; defaults as JSON text.
OpSpec make_op(const char* family, const char* name, const char* inputs, const char* defaults, OpImpl impl);

}  // namespace hm::ops
