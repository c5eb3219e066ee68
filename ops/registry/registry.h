// A table of every op of ops/*.h under its name, behind one uniform callable
//   Tensor call(const std::vector<Tensor>& inputs, const nlohmann::json& attrs)
// plus the names of its tensor inputs, which of them are differentiable, and its attributes
// with their defaults. `harmonic op` and `harmonic bench` run ops through it, and
// tests/ops/test_op_runner.cpp checks it against PyTorch reference values. Running
// one op from named tensors is ops/registry/run_op.h.
#pragma once
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/core/tensor.h"
#include "harmonic/ops/reduce.h"

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

// How make_inputs draws a float input's values: Real ~ N(0, 1); Positive in [0.5, 1.5) (log,
// sqrt, standard deviations, bandwidths); Unit in [-0.9, 0.9) (points and targets of [-1, 1],
// attention inputs kept small); Fraction in [0.1, 0.9) (decays).
enum class Domain { Real, Positive, Unit, Fraction };

// One tensor input, written in the table as "x" (float, differentiable), "~x" (float, not
// differentiable), "#x" (int64 indices), "!x" (bool mask), with a trailing "?" when it may be
// absent (passed as an undefined Tensor) or "*" for a list read as x0, x1, ... (cat, stack).
struct OpInput {
  enum class Kind { Float, Constant, Index, Mask };
  std::string name;
  Kind kind = Kind::Float;
  bool optional = false;
  bool variadic = false;
  Domain domain = Domain::Real;
  bool differentiable() const { return kind == Kind::Float; }
  bool floating() const { return kind == Kind::Float || kind == Kind::Constant; }
};

using OpImpl = Tensor (*)(const std::vector<Tensor>& inputs, const Attrs& attrs);
// Exclusive upper bound for generated index inputs, from the float inputs made so far.
using IndexBound = int64_t (*)(const std::vector<Tensor>& inputs, const Attrs& attrs);

// The bad inputs the sweep (tests/ops/test_op_registry.cpp) feeds an op; each must raise an
// hm::Error naming the op. IntDtype: the first float input as int64. MixedDtype: the second
// float input as float32 beside float64 ones. Shape: the entry's bad_shapes (by default the
// example with the last dim of the last tensor input grown by 1; only for ops of 2+ inputs).
enum Probe : unsigned { kProbeIntDtype = 1, kProbeMixedDtype = 2, kProbeShape = 4, kProbeAll = 7 };

struct OpSpec {
  std::string name;
  std::string family;    // elementwise, reduce, shape, indexing, linalg, nn, fourier, fft
  std::string function;  // the function its errors name: "[function] ..." (default: name)
  std::vector<OpInput> inputs;
  Json defaults;  // every accepted attribute; null marks a required one
  OpImpl impl = nullptr;
  IndexBound index_bound = nullptr;  // null: indices in [0, 2)

  // What the sweep and `harmonic bench --op NAME` (without --shape) run: one small valid call.
  std::string example;                        // shapes as for --shape, one per input: "3x4,4"
  Json example_attrs = Json::object();        // attributes of that call (required ones included)
  std::string bad_shapes;                     // shapes the op must reject ("": derived, see Probe)
  unsigned probes = kProbeAll;                // the bad-input probes that apply
  std::string no_gradcheck;                   // why finite differences cannot check it ("": checked)
  double grad_atol = 1e-5, grad_rtol = 1e-3;  // gradcheck tolerances
  std::string composed;                       // its composed twin's table name (the sweep compares)

  // Checks the attribute names against the defaults and the input count, then runs the op.
  // Variadic inputs are passed flattened (cat/stack take all of them).
  Tensor call(const std::vector<Tensor>& inputs, const Json& attrs = Json::object()) const;
  // Defaults overridden by attrs; unknown names raise an error listing the accepted ones.
  Json merge_attrs(const Json& attrs) const;
  std::string signature() const;  // "cross_entropy(x, #target) {ignore_index: -100, ...}"
  // The declaration of the k-th tensor argument (the variadic one for every k past the end).
  const OpInput& input(size_t k) const { return inputs[std::min(k, inputs.size() - 1)]; }

  // -- setters for the family files: make_op(...).ex("3x4,4").positive() ---------------------
  OpSpec& ex(const char* shapes, const char* attrs = "{}");  // example shapes and attributes
  OpSpec& domain(const char* input, Domain d);               // one float input's values
  OpSpec& positive();                                        // every float input in [0.5, 1.5)
  OpSpec& bound(IndexBound b) {
    index_bound = b;
    return *this;
  }
  OpSpec& bad(const char* shapes) {
    bad_shapes = shapes;
    return *this;
  }
  OpSpec& accepts(unsigned probe) {
    probes &= ~probe;
    return *this;
  }  // a probe that is valid input
  OpSpec& skip_gradcheck(const char* why) {
    no_gradcheck = why;
    return *this;
  }
  OpSpec& tolerance(double atol, double rtol) {
    grad_atol = atol;
    grad_rtol = rtol;
    return *this;
  }
  OpSpec& fn(const char* f) {
    function = f;
    return *this;
  }
  OpSpec& twin(const char* c) {
    composed = c;
    return *this;
  }
};

// Every op, grouped by family (in the order of the family files).
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
// left out: they stay undefined): float in `dtype` drawn from the input's Domain, int64 indices
// uniform below the op's index bound, masks Bernoulli(0.5).
std::vector<Tensor> make_inputs(const OpSpec& spec, const std::vector<Shape>& shapes, const Json& attrs, DType dtype,
                                Generator& gen);

// The example call's inputs (spec.example, spec.example_attrs) in `dtype`.
std::vector<Tensor> example_inputs(const OpSpec& spec, DType dtype, Generator& gen);

// -- building the table (ops/registry/<family>.cpp) ---------------------------------------------

// Appends one family's entries: family(name, inputs, defaults, impl) with inputs as in
// OpInput's comment, space separated, and defaults as JSON text. The example defaults to 3x4
// for every required input.
struct FamilyTable {
  std::vector<OpSpec>& table;
  const char* family;
  OpSpec& operator()(const char* name, const char* inputs, const char* defaults, OpImpl impl);
};
void add_elementwise_ops(std::vector<OpSpec>& table);
void add_reduce_ops(std::vector<OpSpec>& table);
void add_shape_ops(std::vector<OpSpec>& table);
void add_nn_ops(std::vector<OpSpec>& table);  // indexing, linalg, nn
void add_fourier_ops(std::vector<OpSpec>& table);
void add_fft_ops(std::vector<OpSpec>& table);

}  // namespace hm::ops
