// `harmonic op NAME --inputs in.safetensors --out out.safetensors [--attrs JSON] [--device D]`:
// runs one op of the table forward and backward on tensors read by name from a file (plus an
// optional "grad_output") and writes "output" and "grad_<input>" to another, so any framework
// can be compared with Harmonic op by op. `harmonic op --list` prints every op's signature and
// example shapes, grouped by family (from the table, ops/registry/registry.h); `harmonic op
// --where NAME` the files of its API, autograd, kernels and tests (ops/registry/sources.h).
#include <fmt/format.h>

#include "harmonic/core/device.h"
#include "harmonic/core/json_read.h"
#include "harmonic/tools/cli/commands.h"
#include "harmonic/ops/registry/run_op.h"
#include "harmonic/ops/registry/sources.h"

namespace hm::cli {
using namespace hm::ops;
namespace {

struct OpOptions {
  std::string name, inputs, out, attrs = "{}", device = "cpu";
  bool list = false, where = false;
} opt;

void add(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("op", "Run one op forward and backward on tensors from a safetensors file");
  cmd->add_option("name", opt.name, "Op name (see --list)");
  cmd->add_option("--inputs,-i", opt.inputs, "Safetensors file with the op's inputs by name (+ optional grad_output)");
  cmd->add_option("--out,-o", opt.out, "Safetensors file to write: output, grad_<input> ...");
  cmd->add_option("--attrs,-a", opt.attrs, "Op attributes as a JSON object, e.g. '{\"dim\": 1}'");
  cmd->add_option("--device,-d", opt.device, "cpu, cuda or cuda:N");
  cmd->add_flag("--list,-l", opt.list, "List every op with its inputs and default attributes");
  cmd->add_flag("--where,-w", opt.where, "Print the files of the op: API, forward/backward, kernels, tests");
  cmd->footer(
      "Inputs: x = float (gets a gradient), ~x = float constant, #x = int64 indices, !x = bool mask,\n"
      "x? = optional, xs* = xs0, xs1, ... Gradients are written for float inputs without a prefix.");
}

// Every op of the table by family, with its example call (what `harmonic bench --op` times).
int list_ops() {
  std::string family;
  for (const OpSpec& op : op_table()) {
    if (op.family != family) fmt::print("{}{}:\n", family.empty() ? "" : "\n", family = op.family);
    std::string attrs = op.example_attrs.empty() ? "" : " " + op.example_attrs.dump();
    fmt::print("  {}\n      e.g. {}{}\n", op.signature(), op.example, attrs);
  }
  fmt::print("\n{} ops\n", op_table().size());
  return 0;
}

// The op's files, one stem through every layer.
int where_op(const std::string& name) {
  const OpStem& stem = stem_of(name);
  fmt::print("{} (stem '{}'):\n", name, stem.stem);
  for (const std::string& line : source_lines(stem)) fmt::print("  {}\n", line);
  return 0;
}

int run() {
  if (opt.list) return list_ops();
  if (opt.where) {
    check(!opt.name.empty(), "op", "give an op name: harmonic op --where NAME");
    return where_op(opt.name);
  }
  check(!opt.name.empty(), "op", "give an op name (harmonic op NAME ...), or --list to see them");
  check(!opt.inputs.empty() && !opt.out.empty(), "op", "both --inputs and --out are required");
  Json attrs;
  try {
    attrs = parse_json(opt.attrs, "op", "--attrs");
  } catch (const Json::parse_error& e) {
    throw_error("op", fmt::format("--attrs is not valid JSON ({}): {}", opt.attrs, e.what()));
  }
  OpRun run = run_op_file(opt.name, opt.inputs, opt.out, attrs, Device::parse(opt.device));
  for (const std::string& name : run.unused)
    fmt::print(stderr, "warning: tensor '{}' in {} is not an input of {}: {}\n", name, opt.inputs, opt.name,
               find_op(opt.name).signature());
  fmt::print("{}: output {}", opt.name, run.output.desc());
  for (const auto& [name, g] : run.grads) fmt::print(", {} {}", name, str(g.shape()));
  fmt::print(" -> {}\n", opt.out);
  return 0;
}

Registration reg{{"op", add, run}};

}  // namespace
}  // namespace hm::cli
