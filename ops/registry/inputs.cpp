// Generated inputs for `harmonic bench` and the op sweep (tests/ops/test_op_registry.cpp).
#include <algorithm>

#include "harmonic/core/factories.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/registry/registry.h"

namespace hm::ops {

// "256x1024,1024" -> {(256, 1024), (1024)}; "" or "scalar" is a 0-d tensor.
std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = std::min(text.find(',', pos), text.size());
    std::string part = text.substr(pos, end - pos);
    Shape shape;
    if (!part.empty() && part != "scalar") {
      for (size_t p = 0; p <= part.size();) {
        size_t e = std::min(part.find('x', p), part.size());
        std::string num = part.substr(p, e - p);
        check(!num.empty() && num.find_first_not_of("0123456789") == std::string::npos, "shapes",
              "bad shape '{}' in {}: write sizes like 256x1024, shapes separated by commas", part, text);
        shape.push_back(std::stoll(num));
        p = e + 1;
      }
    }
    shapes.push_back(shape);
    pos = end + 1;
  }
  return shapes;
}

std::string shapes_text(const std::vector<Shape>& shapes) {
  std::vector<std::string> parts;
  for (const Shape& s : shapes) {
    std::vector<std::string> dims;
    for (int64_t d : s) dims.push_back(std::to_string(d));
    parts.push_back(dims.empty() ? "scalar" : fmt::format("{}", fmt::join(dims, "x")));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

namespace {
Tensor float_input(Domain domain, const Shape& shape, DType dtype, Generator& gen) {
  switch (domain) {
    case Domain::Positive:
      return uniform(shape, 0.5, 1.5, {.dtype = dtype}, &gen);
    case Domain::Unit:
      return uniform(shape, -0.9, 0.9, {.dtype = dtype}, &gen);
    case Domain::Fraction:
      return uniform(shape, 0.1, 0.9, {.dtype = dtype}, &gen);
    case Domain::Real:
      break;
  }
  return randn(shape, {.dtype = dtype}, &gen);
}
}  // namespace

// Random inputs for spec: floats from each input's Domain, indices uniform below the op's
// bound, masks Bernoulli(0.5).
std::vector<Tensor> make_inputs(const OpSpec& spec, const std::vector<Shape>& shapes, const Json& attrs_in, DType dtype,
                                Generator& gen) {
  bool variadic = !spec.inputs.empty() && spec.inputs.back().variadic;
  size_t required = 0;
  for (const OpInput& in : spec.inputs) required += !in.optional;
  check(variadic ? !shapes.empty() : shapes.size() >= required && shapes.size() <= spec.inputs.size(), "bench",
        "{} takes {}: give one shape per tensor input, got {}", spec.name, spec.signature(), shapes_text(shapes));
  Attrs attrs(spec.name, spec.merge_attrs(attrs_in));
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < spec.inputs.size() || (variadic && k < shapes.size()); ++k) {
    const OpInput& in = spec.input(k);
    if (k >= shapes.size()) {
      inputs.emplace_back();  // an optional input left out
      continue;
    }
    const Shape& shape = shapes[k];
    if (in.kind == OpInput::Kind::Index) {
      int64_t high = spec.index_bound ? spec.index_bound(inputs, attrs) : 2;
      inputs.push_back(randint(0, std::max<int64_t>(high, 1), shape, &gen));
    } else if (in.kind == OpInput::Kind::Mask) {
      inputs.push_back(lt(rand(shape, {}, &gen), 0.5));
    } else {
      inputs.push_back(float_input(in.domain, shape, dtype, gen));
    }
  }
  return inputs;
}

std::vector<Tensor> example_inputs(const OpSpec& spec, DType dtype, Generator& gen) {
  return make_inputs(spec, parse_shapes(spec.example), spec.example_attrs, dtype, gen);
}

}  // namespace hm::ops
