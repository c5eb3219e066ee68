#include "harmonic/nn/linear.h"

#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/nn/init.h"
#include "harmonic/ops/matmul.h"

namespace hm::nn {

Linear::Linear(int64_t in, int64_t out, bool has_bias, Generator* gen)
    : UnaryModule(fmt::format("Linear({}, {}{})", in, out, has_bias ? "" : ", bias=false")),
      in_features(in),
      out_features(out) {
  check(in > 0 && out > 0, "Linear", "features must be positive, got in={} out={}", in, out);
  weight = register_parameter("weight", empty({out, in}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters(gen);
}

Linear::Linear(std::string type_name, const Tensor& w, const Tensor& b) : UnaryModule(std::move(type_name)) {
  check(w.defined() && w.dim() == 2, "Linear", "adopted weight must be (out, in), got {}",
        w.defined() ? w.desc() : "undefined");
  check(!b.defined() || b.shape() == Shape{w.size(0)}, "Linear", "adopted bias must be ({}), got {}", w.size(0),
        b.defined() ? b.desc() : "undefined");
  out_features = w.size(0);
  in_features = w.size(1);
  weight = register_parameter("weight", w);
  if (b.defined()) bias = register_parameter("bias", b);
}

void Linear::reset_parameters(Generator* gen) {
  init::kaiming_uniform_(weight, std::sqrt(5.0), gen);
  if (bias.defined()) {
    double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
    init::uniform_(bias, -bound, bound, gen);
  }
}

Tensor Linear::forward(const Tensor& x) {
  HM_CHECK(x.dim() >= 1 && x.size(-1) == in_features, "Linear", "expected input (..., {}), got {}", in_features,
           x.desc());
  return linear(x, weight, bias);
}

}  // namespace hm::nn
