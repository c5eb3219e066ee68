#include "harmonic/nn/module.h"

#include <algorithm>
#include <functional>
#include <set>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/safetensors.h"

namespace hm::nn {
namespace {

void check_name(const std::string& name, const char* fn) {
  check(!name.empty() && name.find('.') == std::string::npos, fn,
        "name '{}' must be non-empty and contain no '.'", name);
}

bool has_name(const NamedTensors& list, const std::string& name) {
  return std::any_of(list.begin(), list.end(), [&](const auto& p) { return p.first == name; });
}

}  // namespace

Tensor Module::register_parameter(const std::string& name, Tensor value, bool requires_grad) {
  check_name(name, "register_parameter");
  check(!has_name(parameters_, name), "register_parameter", "parameter '{}' already registered", name);
  check(value.defined(), "register_parameter", "parameter '{}' is undefined", name);
  Tensor leaf = value.is_leaf() ? value : value.detach();
  leaf.requires_grad_(requires_grad);  // also clears it on a leaf that arrived requiring grad
  parameters_.emplace_back(name, leaf);
  return leaf;
}

Tensor Module::register_buffer(const std::string& name, Tensor value) {
  check_name(name, "register_buffer");
  check(!has_name(buffers_, name), "register_buffer", "buffer '{}' already registered", name);
  buffers_.emplace_back(name, value.detach());
  return buffers_.back().second;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  check_name(name, "register_module");
  check(module != nullptr, "register_module", "module '{}' is null", name);
  for (const auto& c : children_)
    check(c.first != name, "register_module", "module '{}' already registered", name);
  children_.emplace_back(name, std::move(module));
}

void Module::replace_module(const std::string& name, std::shared_ptr<Module> module) {
  check(module != nullptr, "Module::replace_module", "replacement for '{}' in {} is null", name, type_name_);
  auto child = std::find_if(children_.begin(), children_.end(), [&](const auto& c) { return c.first == name; });
  check(child != children_.end(), "Module::replace_module", "{} has no child '{}'", type_name_, name);
  auto setter = field_setters_.find(name);
  check(setter != field_setters_.end(), "Module::replace_module",
        "child '{}' of {} was registered without its field; register it with register_module(name, field, module)",
        name, type_name_);
  check(setter->second(module), "Module::replace_module", "{} does not fit the field of child '{}' ({}) of {}",
        module->type_name(), name, child->second->type_name(), type_name_);
  child->second = std::move(module);
}

void Module::collect(const std::string& prefix, NamedTensors* params, NamedTensors* buffers) const {
  if (params)
    for (const auto& [n, t] : parameters_) params->emplace_back(prefix + n, t);
  if (buffers)
    for (const auto& [n, t] : buffers_) buffers->emplace_back(prefix + n, t);
  for (const auto& [n, child] : children_) child->collect(prefix + n + ".", params, buffers);
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  collect("", &out, nullptr);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters()) out.push_back(t);
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  collect("", nullptr, &out);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const { return children_; }

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const auto& [name, t] : named_parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_) c->train(on);
}

void Module::zero_grad() {
  for (auto& [n, t] : named_parameters()) t.zero_grad();
}

void Module::to(Device device) {
  NoGradGuard no_grad;
  for (auto& [n, t] : state_dict())
    if (t.device() != device) t.set_data(t.detach().to(device));
}

Device Module::device() const {
  for (const auto& [n, t] : state_dict()) return t.device();
  return Device::cpu();
}

void Module::to(DType dtype) {
  NoGradGuard no_grad;
  for (auto& [n, t] : state_dict())
    if (is_floating(t.dtype()) && t.dtype() != dtype) t.set_data(t.detach().to(dtype));
}

NamedTensors Module::state_dict() const {
  NamedTensors out = named_parameters();
  NamedTensors buffers = named_buffers();
  out.insert(out.end(), buffers.begin(), buffers.end());
  return out;
}

void Module::load_state_dict(const NamedTensors& state, bool strict) {
  NamedTensors own = state_dict();
  std::map<std::string, Tensor> incoming(state.begin(), state.end());
  std::vector<std::string> missing, mismatched, unexpected;
  for (const auto& [name, t] : own) {
    auto it = incoming.find(name);
    if (it == incoming.end()) missing.push_back(name);
    else if (it->second.shape() != t.shape())
      mismatched.push_back(fmt::format("{} (expected {}, got {})", name, str(t.shape()), str(it->second.shape())));
  }
  std::set<std::string> own_names;
  for (const auto& [name, t] : own) own_names.insert(name);
  for (const auto& [name, t] : state)
    if (!own_names.count(name)) unexpected.push_back(name);
  bool bad = !mismatched.empty() || (strict && (!missing.empty() || !unexpected.empty()));
  if (bad)
    throw_error("load_state_dict", fmt::format("missing: [{}]; unexpected: [{}]; shape mismatch: [{}]",
                                               fmt::join(missing, ", "), fmt::join(unexpected, ", "),
                                               fmt::join(mismatched, ", ")));
  NoGradGuard no_grad;
  for (auto& [name, t] : own) {
    auto it = incoming.find(name);
    if (it == incoming.end()) continue;
    Tensor src = it->second.to(t.device()).to(t.dtype());
    t.set_data(src.clone());
  }
}

void Module::save(const std::string& path) const { save_safetensors(path, state_dict(), {{"format", "harmonic"}}); }

void Module::load(const std::string& path, bool strict) {
  SafetensorsFile file = load_safetensors(path);
  try {
    load_state_dict(file.tensors, strict);
  } catch (const Error& e) {
    throw_error("Module::load", fmt::format("{}: {}", path, e.what()));
  }
}

std::string Module::summary() const {
  std::string out;
  std::function<void(const Module&, const std::string&, int)> walk = [&](const Module& m, const std::string& name,
                                                                         int depth) {
    out += fmt::format("{:{}}{}{} ({} parameters)\n", "", 2 * depth, name.empty() ? "" : name + ": ", m.type_name(),
                       m.num_parameters());
    for (const auto& [n, c] : m.children_) walk(*c, n, depth + 1);
  };
  walk(*this, "", 0);
  return out;
}

}  // namespace hm::nn
