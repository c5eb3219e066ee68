// The op table's machinery: attribute parsing, entry parsing and lookup with suggestions.
#include "harmonic/ops/registry/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harmonic/core/factories.h"
#include "harmonic/core/json_read.h"

namespace hm::ops {

// -- Attrs ------------------------------------------------------------------------------------

void Attrs::bad(const char* key, const char* expected) const {
  throw_error("op " + op_, fmt::format("attribute '{}' must be {}, got {}", key, expected, values_.at(key).dump()));
}

const Json& Attrs::need(const char* key) const {
  const Json& v = values_.at(key);
  check(!v.is_null(), "op " + op_, "attribute '{}' is required (pass it with --attrs '{{\"{}\": ...}}')", key, key);
  return v;
}

namespace {
// An integer JSON value that fits int64: JSON reads 18446744073709551615 as an unsigned
// number, which get<int64_t>() would wrap to -1.
bool is_int64(const Json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}
}  // namespace

int64_t Attrs::i(const char* key) const {
  const Json& v = need(key);
  if (!is_int64(v)) bad(key, "an integer in int64's range");
  return v.get<int64_t>();
}

double Attrs::f(const char* key) const {
  const Json& v = need(key);
  if (v.is_number()) return v.get<double>();
  if (v == "inf") return std::numeric_limits<double>::infinity();
  if (v == "-inf") return -std::numeric_limits<double>::infinity();
  bad(key, "a number or \"inf\" / \"-inf\"");
}

bool Attrs::b(const char* key) const {
  const Json& v = need(key);
  if (!v.is_boolean()) bad(key, "true or false");
  return v.get<bool>();
}

std::string Attrs::s(const char* key) const {
  const Json& v = need(key);
  if (!v.is_string()) bad(key, "a string");
  return v.get<std::string>();
}

Dims Attrs::dims(const char* key) const {
  const Json& v = values_.at(key);
  if (v.is_null()) return {};
  if (is_int64(v)) return {v.get<int64_t>()};
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), is_int64))
    bad(key, "an integer or a list of integers in int64's range");
  return v.get<Dims>();
}

Shape Attrs::shape(const char* key) const {
  const Json& v = need(key);
  if (is_int64(v)) return {v.get<int64_t>()};
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), is_int64)) bad(key, "a list of integers in int64's range");
  return v.get<Shape>();
}

// -- OpSpec -----------------------------------------------------------------------------------

OpSpec& FamilyTable::operator()(const char* name, const char* inputs, const char* defaults_text, OpImpl impl) {
  OpSpec& spec = table.emplace_back();
  spec.name = spec.function = name;
  spec.family = family;
  spec.defaults = parse_json(defaults_text, "op_table", fmt::format("{}'s defaults", name));
  spec.impl = impl;
  std::string text = inputs;
  std::vector<std::string> example;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.find(' ', pos), text.size());
    std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    OpInput in;
    if (word[0] == '~') in.kind = OpInput::Kind::Constant;
    if (word[0] == '#') in.kind = OpInput::Kind::Index;
    if (word[0] == '!') in.kind = OpInput::Kind::Mask;
    if (in.kind != OpInput::Kind::Float) word.erase(0, 1);
    if (word.back() == '?') in.optional = true;
    if (word.back() == '*') in.variadic = true;
    if (in.optional || in.variadic) word.pop_back();
    in.name = word;
    if (!in.optional) example.emplace_back("3x4");
    spec.inputs.push_back(in);
  }
  spec.example = fmt::format("{}", fmt::join(example, ","));
  return spec;
}

OpSpec& OpSpec::ex(const char* shapes, const char* attrs) {
  example = shapes;
  example_attrs = parse_json(attrs, "op_table", fmt::format("{}'s example attrs", name));
  return *this;
}

OpSpec& OpSpec::domain(const char* input, Domain d) {
  for (OpInput& in : inputs)
    if (in.name == input) {
      in.domain = d;
      return *this;
    }
  throw_error("op " + name, fmt::format("domain(): no input '{}'", input));
}

OpSpec& OpSpec::positive() {
  for (OpInput& in : inputs)
    if (in.floating()) in.domain = Domain::Positive;
  return *this;
}

Json OpSpec::merge_attrs(const Json& attrs) const {
  check(attrs.is_object() || attrs.is_null(), "op " + name, "attributes must be a JSON object, got {}", attrs.dump());
  Json merged = defaults;
  if (attrs.is_null()) return merged;
  for (const auto& [key, value] : attrs.items()) {
    if (!defaults.contains(key)) {
      std::string accepted;
      for (const auto& [k, v] : defaults.items()) accepted += (accepted.empty() ? "" : ", ") + k;
      throw_error("op " + name, fmt::format("unknown attribute '{}'; {} accepts: {}", key, name,
                                            accepted.empty() ? "no attributes" : accepted));
    }
    merged[key] = value;
  }
  return merged;
}

Tensor OpSpec::call(const std::vector<Tensor>& inputs_in, const Json& attrs) const {
  bool variadic = !this->inputs.empty() && this->inputs.back().variadic;
  check(variadic ? !inputs_in.empty() : inputs_in.size() == this->inputs.size(), "op " + name,
        "expected {} tensor inputs, got {}", variadic ? "at least 1" : std::to_string(this->inputs.size()),
        inputs_in.size());
  return impl(inputs_in, Attrs(name, merge_attrs(attrs)));
}

std::string OpSpec::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OpInput& in = inputs[i];
    const char* prefix = in.kind == OpInput::Kind::Constant ? "~"
                         : in.kind == OpInput::Kind::Index  ? "#"
                         : in.kind == OpInput::Kind::Mask   ? "!"
                                                            : "";
    s += fmt::format("{}{}{}{}", i ? ", " : "", prefix, in.name, in.optional ? "?" : in.variadic ? "*" : "");
  }
  return s + ")" + (defaults.empty() ? "" : " " + defaults.dump());
}

// -- the table and lookup ---------------------------------------------------------------------

const std::vector<OpSpec>& op_table() {
  static const std::vector<OpSpec> table = [] {
    std::vector<OpSpec> t;
    add_elementwise_ops(t);
    add_reduce_ops(t);
    add_shape_ops(t);
    add_nn_ops(t);
    add_fourier_ops(t);
    add_fft_ops(t);
    return t;
  }();
  return table;
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::vector<std::string> close_op_names(const std::string& name, size_t count) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const OpSpec& op : op_table()) {
    size_t d = edit_distance(name, op.name);
    bool related =
        !name.empty() && (op.name.find(name) != std::string::npos || name.find(op.name) != std::string::npos);
    if (related || d <= std::max<size_t>(2, name.size() / 3)) scored.emplace_back(d, op.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> names;
  for (size_t i = 0; i < scored.size() && i < count; ++i) names.push_back(scored[i].second);
  return names;
}

const OpSpec& find_op(const std::string& name) {
  for (const OpSpec& op : op_table())
    if (op.name == name) return op;
  std::vector<std::string> close = close_op_names(name);
  throw_error("op", fmt::format("unknown op '{}'{}; `harmonic op --list` shows all {} ops", name,
                                close.empty() ? "" : fmt::format(" (did you mean {}?)", fmt::join(close, ", ")),
                                op_table().size()));
}

}  // namespace hm::ops
