// Target "op_attrs": `harmonic op NAME --attrs JSON`: the input's first '\0'-separated field is
// the op name, the second its attributes; the op runs forward and backward (run_op) on its
// registry example's inputs, as the command runs it on the tensors of --inputs.
#include "harmonic/core/json_read.h"
#include "harmonic/ops/registry/run_op.h"
#include "tests/fuzz/fuzz_targets.h"

namespace hm::fuzz {

int fuzz_op_attrs(const uint8_t* data, size_t size) {
  const std::vector<std::string> fields = split_fields(as_text(data, size), 2);
  return reject_errors([&] {
    const ops::OpSpec& spec = ops::find_op(fields[0]);
    ops::Json attrs;
    try {
      attrs = parse_json(fields.size() > 1 ? fields[1] : "{}", "op", "--attrs");
    } catch (const ops::Json::exception& e) {  // the command's own message (tools/cli/cmd_op.cpp)
      throw_error("op", fmt::format("--attrs is not valid JSON: {}", e.what()));
    }
    Generator gen(1);
    const std::vector<Tensor> inputs = ops::example_inputs(spec, DType::Float64, gen);
    (void)ops::run_op(spec, ops::name_inputs(spec, inputs), attrs);
  });
}

}  // namespace hm::fuzz
