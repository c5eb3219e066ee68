// The op table's machinery: attribute parsing, lookup with suggestions, and the runner that
// takes named tensors through one forward and backward pass (ops/registry/op_table.h).
#include "ops/registry/op_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "core/factories.h"
#include "core/safetensors.h"

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

int64_t Attrs::i(const char* key) const {
  const Json& v = need(key);
  if (!v.is_number_integer()) bad(key, "an integer");
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
  if (v.is_number_integer()) return {v.get<int64_t>()};
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_number_integer(); }))
    bad(key, "an integer or a list of integers");
  return v.get<Dims>();
}

Shape Attrs::shape(const char* key) const {
  const Json& v = need(key);
  if (v.is_number_integer()) return {v.get<int64_t>()};
  if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_number_integer(); }))
    bad(key, "a list of integers");
  return v.get<Shape>();
}

// -- OpSpec -----------------------------------------------------------------------------------

OpSpec make_op(const char* family, const char* name, const char* inputs, const char* defaults, OpImpl impl) {
  OpSpec spec{.name = name, .family = family, .defaults = Json::parse(defaults), .impl = impl};
  std::string text = inputs;
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
    spec.inputs.push_back(in);
  }
  return spec;
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
    add_reduce_shape_ops(t);
    add_nn_ops(t);
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

// -- running ----------------------------------------------------------------------------------

OpRun run_op(const OpSpec& spec, const NamedTensors& tensors, const Json& attrs, Device device) {
  const std::string fn = "op " + spec.name;
  auto lookup = [&](const std::string& name) -> const Tensor* {
    for (const auto& [n, t] : tensors)
      if (n == name) return &t;
    return nullptr;
  };
  auto available = [&] {
    std::vector<std::string> names;
    for (const auto& [n, t] : tensors) names.push_back(n);
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
  };
  std::vector<std::string> used;
  auto take = [&](const std::string& name) {
    used.push_back(name);
    return lookup(name)->detach().to(device);  // a fresh leaf, never the caller's tensor
  };

  // inputs: one per declared input, or name0, name1, ... for a variadic one
  std::vector<Tensor> inputs;
  std::vector<std::string> names;
  std::vector<bool> wants_grad;
  for (const OpInput& in : spec.inputs) {
    std::vector<std::string> wanted;
    if (in.variadic) {
      for (int k = 0; lookup(in.name + std::to_string(k)); ++k) wanted.push_back(in.name + std::to_string(k));
      check(!wanted.empty(), fn, "missing input tensors '{}0', '{}1', ... (the file has: {}); the op is {}", in.name,
            in.name, available(), spec.signature());
    } else if (!lookup(in.name)) {
      check(in.optional, fn, "missing input tensor '{}' (the file has: {}); the op is {}", in.name, available(),
            spec.signature());
      inputs.emplace_back();
      names.push_back(in.name);
      wants_grad.push_back(false);
      continue;
    } else {
      wanted.push_back(in.name);
    }
    for (const std::string& name : wanted) {
      Tensor t = take(name);
      bool grad = in.differentiable() && is_floating(t.dtype());
      if (grad) t.requires_grad_(true);
      inputs.push_back(t);
      names.push_back(name);
      wants_grad.push_back(grad);
    }
  }

  OpRun run;
  Tensor out;
  {
    EnableGradGuard grad_on;
    out = spec.call(inputs, attrs);
  }
  run.output = out.detach().to(Device::cpu());
  if (lookup("grad_output")) used.push_back("grad_output");
  for (const auto& [n, t] : tensors)
    if (std::find(used.begin(), used.end(), n) == used.end()) run.unused.push_back(n);

  if (!is_floating(out.dtype()) || !out.requires_grad()) return run;
  Tensor g;
  if (const Tensor* go = lookup("grad_output")) {
    HM_CHECK(go->shape() == out.shape(), fn, "grad_output has shape {} but the output has shape {}", str(go->shape()),
             str(out.shape()));
    g = go->to(out.dtype()).to(device);
  } else {
    g = ones_like(out);
  }
  out.backward(g);
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!wants_grad[k]) continue;
    Tensor grad = inputs[k].grad();
    run.grads.emplace_back("grad_" + names[k],
                           grad.defined() ? grad.to(Device::cpu()) : zeros_like(inputs[k]).to(Device::cpu()));
  }
  return run;
}

OpRun run_op_file(const std::string& op, const std::string& in_path, const std::string& out_path, const Json& attrs,
                  Device device) {
  const OpSpec& spec = find_op(op);
  SafetensorsFile in = load_safetensors(in_path);
  OpRun run = run_op(spec, in.tensors, attrs, device);
  NamedTensors out{{"output", run.output}};
  out.insert(out.end(), run.grads.begin(), run.grads.end());
  save_safetensors(out_path, out, {{"op", op}, {"attrs", spec.merge_attrs(attrs).dump()}, {"device", device.str()}});
  return run;
}

}  // namespace hm::ops
