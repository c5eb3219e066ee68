// The op registry (ops/registry/registry.h) swept op by op: the table covers every public op of
// ops/*.h; on each entry's example inputs (float64) the forward gives finite float64 values,
// gradcheck passes for every differentiable input (unless the entry says why not), a fused op
// matches its composed twin, and bad inputs (wrong dtype, mixed float widths, wrong shapes)
// raise an hm::Error naming the op instead of crashing.
#include <cmath>
#include <set>

#include "harmonic/autograd/gradcheck.h"
#include "harmonic/ops/registry/run_op.h"
#include "harmonic/ops/registry/sources.h"
#include "tests/helpers.h"

using namespace hm;
using namespace hm::ops;
using hm::test::allclose;

namespace {

// Float (differentiable or constant) input positions of a call.
std::vector<size_t> float_positions(const OpSpec& spec, const std::vector<Tensor>& inputs) {
  std::vector<size_t> ks;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].defined() && spec.input(k).floating()) ks.push_back(k);
  return ks;
}

// The probe's shapes: the entry's bad_shapes, else the example with the last dim of the last
// tensor input (past the first) grown by 1; empty when neither applies.
std::vector<Shape> bad_shapes_of(const OpSpec& spec) {
  if (!spec.bad_shapes.empty()) return parse_shapes(spec.bad_shapes);
  std::vector<Shape> shapes = parse_shapes(spec.example);
  for (size_t k = shapes.size(); k-- > 1;)
    if (!shapes[k].empty()) {
      shapes[k].back() += 1;
      return shapes;
    }
  return {};
}

// "" when f throws an hm::Error naming the op, else what went wrong.
template <class F>
std::string rejection_problem(const OpSpec& spec, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find(spec.function) == std::string::npos && msg.find(spec.name) == std::string::npos)
      return "the error does not name the op: " + msg;
    return "";
  } catch (const std::exception& e) {
    return std::string("not an hm::Error: ") + e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("op registry: the table holds every public op of ops/*.h once, each with an example") {
  // Every op of the stem table (ops/registry/sources.h) is registered once. Adding an op to
  // ops/*.h? Register it in ops/registry/<family>.cpp (with example shapes, and a reason if
  // gradcheck cannot apply) and list it under its stem. Table-only variants: <op>_scalar (tensor
  // (op) double), max/min (the values), <op>_composed (the detail:: twins). Left out on purpose:
  // fourier_bin_centres and hann_window (no tensor input), dft_inplace (host-side std::complex,
  // not a tensor op), the autocast guards (not ops).
  std::set<std::string> listed, names;
  for (const OpStem& stem : op_stems())
    for (const std::string& op : stem.ops) {
      CAPTURE(stem.stem);
      CAPTURE(op);
      CHECK(listed.insert(op).second);
      CHECK_NOTHROW(find_op(op));  // missing: register it in ops/registry/<family>.cpp
    }
  for (const OpSpec& op : op_table()) {
    CAPTURE(op.name);
    CHECK(names.insert(op.name).second);
    CHECK(listed.count(op.name) == 1);  // a table entry no stem lists
    CHECK(static_cast<bool>(op.impl));
    CHECK(!op.signature().empty());
    CHECK(!op.example.empty());
    CHECK_NOTHROW(parse_shapes(op.example));
    CHECK_NOTHROW(op.merge_attrs(op.example_attrs));
    if (!op.composed.empty()) CHECK_NOTHROW(find_op(op.composed));
  }
}

TEST_CASE("op registry sweep: forward on the example gives finite float64, gradients have the inputs' shapes") {
  Generator gen(11);
  for (const OpSpec& spec : op_table()) {
    INFO("op ", spec.name, " on ", spec.example, " ", spec.example_attrs.dump());
    NamedTensors named = name_inputs(spec, example_inputs(spec, DType::Float64, gen));
    OpRun run;
    REQUIRE_NOTHROW(run = run_op(spec, named, spec.example_attrs));
    CHECK(run.unused.empty());
    CHECK(run.output.dtype() != DType::Float32);  // float64 in, float64 out (never silently narrowed)
    if (is_floating(run.output.dtype()))
      for (double v : run.output.to_vector()) CHECK(std::isfinite(v));
    for (const auto& [gname, g] : run.grads) {
      const Tensor* input = nullptr;
      for (const auto& [n, t] : named)
        if ("grad_" + n == gname) input = &t;
      REQUIRE(input != nullptr);
      CHECK(g.shape() == input->shape());
      CHECK(g.dtype() == input->dtype());
    }
    if (spec.composed.empty()) continue;
    INFO("composed twin ", spec.composed);
    OpRun twin = run_op(find_op(spec.composed), named, spec.example_attrs);
    CHECK(allclose(run.output, twin.output, 1e-9, 1e-12));
    REQUIRE(run.grads.size() == twin.grads.size());
    for (size_t k = 0; k < run.grads.size(); ++k)
      CHECK(allclose(run.grads[k].second, twin.grads[k].second, 1e-9, 1e-12));
  }
}

TEST_CASE("op registry sweep: gradcheck (float64 central differences) of every differentiable input") {
  Generator gen(12);
  int checked = 0;
  for (const OpSpec& spec : op_table()) {
    INFO("op ", spec.name, " on ", spec.example, " ", spec.example_attrs.dump());
    if (!spec.no_gradcheck.empty()) {
      MESSAGE(spec.name << ": no gradcheck: " << spec.no_gradcheck);
      continue;
    }
    std::vector<Tensor> inputs = example_inputs(spec, DType::Float64, gen);
    bool any = false;
    for (size_t k = 0; k < inputs.size(); ++k)
      if (inputs[k].defined() && spec.input(k).differentiable()) {
        inputs[k].requires_grad_(true);
        any = true;
      }
    Tensor probe = spec.call(inputs, spec.example_attrs);
    if (!any || !is_floating(probe.dtype())) continue;  // nothing differentiable (comparisons, argmax, ...)
    CHECK_NOTHROW(gradcheck([&](const std::vector<Tensor>& in) { return spec.call(in, spec.example_attrs); }, inputs,
                            {.atol = spec.grad_atol, .rtol = spec.grad_rtol}));
    ++checked;
  }
  CHECK(checked >= 80);
}

TEST_CASE("op registry sweep: bad dtypes and shapes raise an hm::Error naming the op") {
  Generator gen(13);
  for (const OpSpec& spec : op_table()) {
    INFO("op ", spec.name, " on ", spec.example, " ", spec.example_attrs.dump());
    std::vector<Tensor> good = example_inputs(spec, DType::Float64, gen);
    std::vector<size_t> fl = float_positions(spec, good);
    auto call = [&](const std::vector<Tensor>& in) { return [&spec, in] { spec.call(in, spec.example_attrs); }; };
    if ((spec.probes & kProbeIntDtype) && !fl.empty()) {
      std::vector<Tensor> in = good;
      in[fl[0]] = in[fl[0]].to(DType::Int64);
      INFO("probe: input ", spec.input(fl[0]).name, " as int64");
      CHECK(rejection_problem(spec, call(in)) == "");
    }
    if ((spec.probes & kProbeMixedDtype) && fl.size() >= 2) {
      std::vector<Tensor> in = good;
      in[fl[1]] = in[fl[1]].to(DType::Float32);
      INFO("probe: input ", spec.input(fl[1]).name, " as float32 beside float64");
      CHECK(rejection_problem(spec, call(in)) == "");
    }
    std::vector<Shape> bad = bad_shapes_of(spec);
    if ((spec.probes & kProbeShape) && !bad.empty()) {
      INFO("probe: shapes ", shapes_text(bad));
      CHECK(rejection_problem(spec, [&] {
              spec.call(make_inputs(spec, bad, spec.example_attrs, DType::Float64, gen), spec.example_attrs);
            }) == "");
    }
  }
}
