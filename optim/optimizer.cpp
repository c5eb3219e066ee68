// Optimizer base: parameter groups, the update loop, and exact state save/restore.
#include "harmonic/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/json_read.h"
#include "harmonic/core/safetensors.h"
#include "harmonic/nn/module.h"
#include "harmonic/ops/shape_views.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {

// -- building groups --------------------------------------------------------------------------

Params::Params(std::vector<Tensor> params) {
  groups.emplace_back();
  groups.back().params = std::move(params);
}

Params::Params(const NamedTensors& named) {
  ParamGroup g;
  for (const auto& [name, t] : named) {
    g.names.push_back(name);
    g.params.push_back(t);
  }
  groups.push_back(std::move(g));
}

Params::Params(std::vector<ParamGroup> groups) : groups(std::move(groups)) {}

bool default_no_decay(const std::string& name, const Tensor& param) {
  if (param.dim() <= 1) return true;
  if (name == "bias" || (name.size() >= 5 && name.ends_with(".bias"))) return true;
  // Module path components: "blocks.0.ln_1.weight" -> blocks, 0, ln_1 (the last is the tensor).
  size_t begin = 0;
  for (size_t dot = name.find('.'); dot != std::string::npos; begin = dot + 1, dot = name.find('.', begin)) {
    std::string_view part(name.data() + begin, dot - begin);
    if (part.find("norm") != std::string_view::npos || part.starts_with("ln")) return true;
  }
  return false;
}

std::vector<ParamGroup> param_groups_no_decay(const nn::Module& module, double weight_decay,
                                              const NoDecayPredicate& no_decay) {
  check(static_cast<bool>(no_decay), "param_groups_no_decay", "the no-decay predicate is empty");
  ParamGroup decay, plain;
  decay.weight_decay = weight_decay;
  plain.weight_decay = 0.0;
  for (const auto& [name, t] : module.named_parameters()) {
    if (!t.requires_grad()) continue;
    ParamGroup& g = no_decay(name, t) ? plain : decay;
    g.params.push_back(t);
    g.names.push_back(name);
  }
  return {std::move(decay), std::move(plain)};
}

// -- construction -----------------------------------------------------------------------------

Optimizer::Optimizer(std::string type_name, Params params, double lr, double weight_decay,
                     std::vector<std::string> buffer_names)
    : type_name_(std::move(type_name)), groups_(std::move(params.groups)), buffer_names_(std::move(buffer_names)) {
  check_option(lr >= 0, "learning rate", lr, "must be >= 0");
  check_option(weight_decay >= 0, "weight_decay", weight_decay, "must be >= 0");
  check(!groups_.empty(), type_name_, "no parameter groups");
  std::set<const TensorImpl*> seen;
  int64_t total = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    ParamGroup& g = groups_[gi];
    check(g.names.empty() || g.names.size() == g.params.size(), type_name_, "group {} has {} names for {} parameters",
          gi, g.names.size(), g.params.size());
    if (std::isnan(g.lr)) g.lr = lr;
    if (std::isnan(g.weight_decay)) g.weight_decay = weight_decay;
    if (std::isnan(g.initial_lr)) g.initial_lr = g.lr;
    check_option(g.lr >= 0, "learning rate", g.lr, "must be >= 0");
    check_option(g.weight_decay >= 0, "weight_decay", g.weight_decay, "must be >= 0");
    for (size_t i = 0; i < g.params.size(); ++i) {
      const Tensor& p = g.params[i];
      std::string label = param_label(gi, i);
      check(p.defined(), type_name_, "parameter {} is undefined", label);
      HM_CHECK(p.is_leaf(), type_name_,
               "parameter {} ({}) is not a leaf tensor: it is the output of an op; optimise the leaves it comes from",
               label, p.desc());
      HM_CHECK(is_floating(p.dtype()), type_name_, "parameter {} is {}, expected a floating tensor", label, p.desc());
      check(seen.insert(p.impl()).second, type_name_, "parameter {} appears more than once in the groups", label);
    }
    total += static_cast<int64_t>(g.params.size());
    state_.emplace_back(g.params.size(), ParamState{0, std::vector<Tensor>(buffer_names_.size())});
  }
  check(total > 0, type_name_, "got an empty parameter list");
}

void Optimizer::check_option(bool ok, const char* what, double value, const char* rule) const {
  check(ok, type_name_, "invalid {} {} ({})", what, value, rule);
}

std::string Optimizer::param_label(int64_t g, int64_t i) const {
  const ParamGroup& group = groups_[g];
  if (!group.names.empty()) return fmt::format("'{}' (group {}, index {})", group.names[i], g, i);
  return fmt::format("group {} index {}", g, i);
}

// -- the update loop --------------------------------------------------------------------------

void Optimizer::step() {
  NoGradGuard no_grad;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const ParamGroup& g = groups_[gi];
    // The parameters with a gradient, split by (device, dtype, step count) in order of appearance.
    std::vector<std::vector<Entry>> parts;
    for (size_t i = 0; i < g.params.size(); ++i) {
      const Tensor& p = g.params[i];
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      HM_CHECK(grad.shape() == p.shape() && grad.dtype() == p.dtype() && grad.device() == p.device(), type_name_,
               "gradient {} does not match parameter {} {}", grad.desc(), param_label(gi, i), p.desc());
      ParamState& st = state_[gi][i];
      // Module::to() may have moved or converted the parameter since the buffers were made.
      for (Tensor& b : st.buffers)
        if (b.defined() && (b.device() != p.device() || b.dtype() != p.dtype())) b = b.to(p.device()).to(p.dtype());
      Entry e{static_cast<int32_t>(i), p.is_contiguous() ? p : p.contiguous(), grad.contiguous(), &st};
      auto same_part = [&](const std::vector<Entry>& part) {
        const Entry& f = part.front();
        return f.param.device() == p.device() && f.param.dtype() == p.dtype() &&
               (capturable_ || f.state->step == st.step);
      };
      auto it = std::find_if(parts.begin(), parts.end(), same_part);
      if (it == parts.end())
        parts.push_back({std::move(e)});
      else
        it->push_back(std::move(e));
    }
    DeviceSchedule schedule;
    if (capturable_ && !parts.empty()) {
      const Device dev = parts[0][0].param.device();
      for (const auto& part : parts)
        HM_CHECK(part[0].param.device() == dev, type_name_,
                 "capturable mode needs one device per group: group {} has parameter {} on {} and {} on {}", gi,
                 param_label(gi, parts[0][0].index), dev.str(), param_label(gi, part[0].index),
                 part[0].param.device().str());
      if (schedules_[gi].device() != dev) schedules_[gi] = schedules_[gi].to(dev);  // the parameters moved
      schedule.table = schedules_[gi];
    }
    for (const auto& part : parts) {
      schedule.slots.clear();
      if (schedule.defined())
        for (const Entry& e : part) schedule.slots.push_back(e.index);
      update(g, part, schedule);
      for (const Entry& e : part) {
        Tensor p = g.params[e.index];
        if (e.param.same(p))
          p.bump_version();
        else
          p.copy_(e.param);
      }
    }
  }
  ++steps_;
}

void Optimizer::set_capturable(bool on) {
  if (on == capturable_) return;
  if (on) {
    capturable_ = true;
    make_schedules();
    return;
  }
  for (size_t g = 0; g < state_.size(); ++g) {
    const std::vector<int64_t> steps = group_steps(g);
    for (size_t i = 0; i < steps.size(); ++i) state_[g][i].step = steps[i];
  }
  capturable_ = false;
  schedules_.clear();
}

void Optimizer::make_schedules() {
  schedules_.clear();
  for (size_t g = 0; g < groups_.size(); ++g) {
    const ParamGroup& pg = groups_[g];
    for (size_t i = 0; i < pg.params.size(); ++i)
      HM_CHECK(pg.params[i].device() == pg.params[0].device(), "set_capturable",
               "{} group {} has parameters on two devices ({} on {}, {} on {}): capturable mode needs one per group",
               type_name_, g, param_label(g, 0), pg.params[0].device().str(), param_label(g, i),
               pg.params[i].device().str());
    std::vector<double> values{pg.lr};
    for (const ParamState& st : state_[g]) values.push_back(static_cast<double>(st.step));
    const int64_t n = static_cast<int64_t>(values.size());
    schedules_.push_back(
        from_vector(values, {n}, {.dtype = DType::Float64}).to(pg.params.empty() ? Device::cpu() : pg.params[0].device()));
  }
}

std::vector<int64_t> Optimizer::group_steps(size_t g) const {
  std::vector<int64_t> steps;
  if (!capturable_) {
    for (const auto& st : state_[g]) steps.push_back(st.step);
    return steps;
  }
  const std::vector<double> table = schedules_[g].to_vector();  // a wait for the device
  for (size_t i = 1; i < table.size(); ++i) steps.push_back(static_cast<int64_t>(table[i]));
  return steps;
}

void Optimizer::zero_grad() {
  for (const auto& g : groups_)
    for (const auto& p : g.params) p.zero_grad();
}

const ParamGroup& Optimizer::group(int64_t i) const {
  check(i >= 0 && i < num_groups(), type_name_, "group index {} out of range for {} groups", i, num_groups());
  return groups_[i];
}

double Optimizer::lr(int64_t g) const { return group(g).lr; }

void Optimizer::set_lr(double lr) {
  for (int64_t g = 0; g < num_groups(); ++g) set_lr(g, lr);
}

void Optimizer::set_lr(int64_t g, double lr) {
  group(g);
  check(lr >= 0 && std::isfinite(lr), "set_lr", "invalid learning rate {} for {} group {} (must be finite and >= 0)",
        lr, type_name_, g);
  groups_[g].lr = lr;
  if (capturable_) narrow(schedules_[g], 0, 0, 1).fill_(lr);  // a fill kernel: nothing is read back
}

// -- state ------------------------------------------------------------------------------------

namespace {
std::string state_key(size_t g, size_t i, const std::string& buffer) {
  return fmt::format("group{}.param{}.{}", g, i, buffer);
}
}  // namespace

NamedTensors Optimizer::state_tensors() const {
  NamedTensors out;
  for (size_t g = 0; g < state_.size(); ++g)
    for (size_t i = 0; i < state_[g].size(); ++i)
      for (size_t b = 0; b < buffer_names_.size(); ++b)
        if (state_[g][i].buffers[b].defined())
          out.emplace_back(state_key(g, i, buffer_names_[b]), state_[g][i].buffers[b]);
  return out;
}

nlohmann::json Optimizer::state_json() const {
  nlohmann::json groups = nlohmann::json::array();
  for (size_t g = 0; g < groups_.size(); ++g) {
    const ParamGroup& pg = groups_[g];
    const std::vector<int64_t> steps = group_steps(g);
    groups.push_back({{"lr", pg.lr},
                      {"weight_decay", pg.weight_decay},
                      {"initial_lr", pg.initial_lr},
                      {"num_params", pg.params.size()},
                      {"names", pg.names},
                      {"steps", steps}});
  }
  return {{"type", type_name_}, {"steps", steps_}, {"options", options_json()}, {"groups", groups}};
}

void Optimizer::load_state(const NamedTensors& tensors, const nlohmann::json& state) {
  const std::string fn = type_name_ + ".load_state";
  try {
    check(state.value("type", std::string()) == type_name_, fn, "state is from a {} optimizer, not {}",
          state.value("type", std::string("?")), type_name_);
    const auto& groups = state.at("groups");
    check(groups.size() == groups_.size(), fn, "state has {} parameter groups, this optimizer {}", groups.size(),
          groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g) {
      size_t n = groups[g].at("num_params").get<size_t>();
      check(n == groups_[g].params.size(), fn, "group {} has {} parameters in the state, {} here", g, n,
            groups_[g].params.size());
      auto names = groups[g].at("names").get<std::vector<std::string>>();
      check(names.empty() || groups_[g].names.empty() || names == groups_[g].names, fn,
            "group {} parameter names differ from the state's (first: '{}' vs '{}')", g, names.empty() ? "" : names[0],
            groups_[g].names.empty() ? "" : groups_[g].names[0]);
    }
    // Buffers: every tensor must belong to a parameter and match its shape.
    std::map<std::string, Tensor> incoming(tensors.begin(), tensors.end());
    check(incoming.size() == tensors.size(), fn, "duplicate state tensor names");
    std::vector<bool> saved(buffer_names_.size(), false);  // kinds of buffer the state holds
    for (size_t b = 0; b < buffer_names_.size(); ++b)
      for (const auto& [name, t] : tensors)
        saved[b] = saved[b] || name.ends_with("." + buffer_names_[b]);
    std::vector<std::vector<ParamState>> fresh;
    for (size_t g = 0; g < groups_.size(); ++g) {
      auto steps = groups[g].at("steps").get<std::vector<int64_t>>();
      check(steps.size() == groups_[g].params.size(), fn, "group {} has {} step counters for {} parameters", g,
            steps.size(), groups_[g].params.size());
      fresh.emplace_back();
      for (size_t i = 0; i < steps.size(); ++i) {
        const Tensor& p = groups_[g].params[i];
        ParamState st{steps[i], std::vector<Tensor>(buffer_names_.size())};
        for (size_t b = 0; b < buffer_names_.size(); ++b) {
          auto it = incoming.find(state_key(g, i, buffer_names_[b]));
          // A buffer kind some stepped parameter has (an Adam moment; SGD's momentum only with
          // momentum) every stepped parameter must have: it was made at its first step.
          check(it != incoming.end() || steps[i] == 0 || !saved[b], fn,
                "state has no {} for parameter {}, which is at step {}", state_key(g, i, buffer_names_[b]),
                param_label(g, i), steps[i]);
          if (it == incoming.end()) continue;
          HM_CHECK(it->second.shape() == p.shape(), fn, "state tensor {} has shape {}, parameter {} has {}", it->first,
                   str(it->second.shape()), param_label(g, i), str(p.shape()));
          st.buffers[b] = it->second.detach().to(p.device()).to(p.dtype()).clone();
          incoming.erase(it);
        }
        fresh[g].push_back(std::move(st));
      }
    }
    check(incoming.empty(), fn, "unexpected state tensor {}", incoming.empty() ? "" : incoming.begin()->first);
    load_options(state.at("options"));
    for (size_t g = 0; g < groups_.size(); ++g) {
      groups_[g].lr = groups[g].at("lr").get<double>();
      groups_[g].weight_decay = groups[g].at("weight_decay").get<double>();
      groups_[g].initial_lr = groups[g].at("initial_lr").get<double>();
    }
    steps_ = state.at("steps").get<int64_t>();
    state_ = std::move(fresh);
    if (capturable_) make_schedules();
  } catch (const nlohmann::json::exception& e) {
    throw_error(fn, fmt::format("malformed optimizer state json: {}", e.what()));
  }
}

void Optimizer::save(const std::string& path) const {
  save_safetensors(path, state_tensors(), {{"optimizer", state_json().dump()}});
}

void Optimizer::load(const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  auto it = file.metadata.find("optimizer");
  check(it != file.metadata.end(), type_name_ + ".load", "{} has no 'optimizer' metadata", path);
  nlohmann::json state;
  try {
    state = parse_json(it->second, type_name_ + ".load", fmt::format("'{}': metadata 'optimizer'", path));
  } catch (const nlohmann::json::exception& e) {
    throw_error(type_name_ + ".load", fmt::format("{}: bad optimizer json: {}", path, e.what()));
  }
  load_state(file.tensors, state);
}

}  // namespace hm::optim
