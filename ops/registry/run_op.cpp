// run_op: named tensors through one forward and backward pass (ops/registry/run_op.h).
#include "harmonic/ops/registry/run_op.h"

#include <algorithm>

#include "harmonic/autograd/grad_mode.h"
#include "harmonic/core/factories.h"
#include "harmonic/core/safetensors.h"

namespace hm::ops {

NamedTensors name_inputs(const OpSpec& spec, const std::vector<Tensor>& inputs) {
  NamedTensors named;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].defined()) continue;
    const OpInput& in = spec.input(k);
    named.emplace_back(in.variadic ? in.name + std::to_string(k + 1 - spec.inputs.size()) : in.name, inputs[k]);
  }
  return named;
}

namespace {
// An error raised below the op (a shape's element count, an allocation, a helper op such as
// reshape inside sum_to) gets the op's name in front, so `harmonic op` always says which op.
template <class F>
auto naming_the_op(const OpSpec& spec, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    std::string_view msg = e.what();
    if (msg.find(spec.name) != std::string_view::npos || msg.find(spec.function) != std::string_view::npos) throw;
    throw_error("op " + spec.name, std::string(msg));
  }
}
}  // namespace

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
    out = naming_the_op(spec, [&] { return spec.call(inputs, attrs); });
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
    g = naming_the_op(spec, [&] { return ones_like(out); });  // (an expand's output may be huge)
  }
  naming_the_op(spec, [&] {
    out.backward(g);
    return 0;
  });
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
