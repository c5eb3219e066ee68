// Running one op of the table forward and backward on named tensors: what `harmonic op` does.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "harmonic/ops/registry/registry.h"

namespace hm::ops {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct OpRun {
  Tensor output;                    // on the CPU
  NamedTensors grads;               // "grad_<input>" for each float differentiable input, on the CPU
  std::vector<std::string> unused;  // named tensors the op did not read
};

// Reads the op's inputs by name from `tensors` (plus an optional "grad_output"), moves them to
// `device`, makes float differentiable inputs leaves that require grad, runs forward, then
// backward with grad_output (ones when absent) when the output is float and anything needs a
// gradient. An input the graph does not reach gets a zero gradient.
OpRun run_op(const OpSpec& spec, const NamedTensors& tensors, const Json& attrs = Json::object(),
             Device device = Device::cpu());

// The `harmonic op` command: inputs from a safetensors file, "output" and "grad_<input>"
// written to out_path (with the op name and attributes as metadata). Returns the run.
OpRun run_op_file(const std::string& op, const std::string& in_path, const std::string& out_path,
                  const Json& attrs = Json::object(), Device device = Device::cpu());

// The inputs under the names run_op reads (xs0, xs1, ... for a variadic list); skips undefined ones.
NamedTensors name_inputs(const OpSpec& spec, const std::vector<Tensor>& inputs);

}  // namespace hm::ops
