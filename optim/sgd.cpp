// SGD: hyperparameter checks and the per-parameter call of the fused kernel.
#include "harmonic/optim/sgd.h"

#include "harmonic/core/factories.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {

SGD::SGD(Params params, SGDOptions options)
    : Optimizer("SGD", std::move(params), options.lr, options.weight_decay, {"momentum_buffer"}), options_(options) {
  validate(options_);
}

void SGD::validate(const SGDOptions& o) const {
  check_option(o.lr >= 0, "learning rate", o.lr, "must be >= 0");
  check_option(o.momentum >= 0, "momentum", o.momentum, "must be >= 0");
  check_option(o.dampening >= 0 && o.dampening <= 1, "dampening", o.dampening, "must be in [0, 1]");
  check_option(o.weight_decay >= 0, "weight_decay", o.weight_decay, "must be >= 0");
  check(!o.nesterov || (o.momentum > 0 && o.dampening == 0), "SGD",
        "Nesterov momentum requires momentum > 0 and dampening 0, got momentum {} dampening {}", o.momentum,
        o.dampening);
}

void SGD::update(const ParamGroup& group, const Tensor& param, const Tensor& grad, ParamState& state) {
  SgdStep s{.lr = group.lr,
            .momentum = options_.momentum,
            .dampening = options_.dampening,
            .weight_decay = group.weight_decay,
            .nesterov = options_.nesterov,
            .maximize = options_.maximize};
  Tensor& buffer = state.buffers[0];
  if (options_.momentum != 0 && !buffer.defined()) {
    buffer = Tensor::empty(param.shape(), param.dtype(), param.device());
    s.first = true;
  }
  sgd_kernel(param.device(), param, grad, options_.momentum != 0 ? buffer : Tensor(), s);
  ++state.step;
}

nlohmann::json SGD::options_json() const {
  return {{"lr", options_.lr},
          {"momentum", options_.momentum},
          {"dampening", options_.dampening},
          {"weight_decay", options_.weight_decay},
          {"nesterov", options_.nesterov},
          {"maximize", options_.maximize}};
}

void SGD::load_options(const nlohmann::json& j) {
  SGDOptions o{.lr = j.at("lr"),
               .momentum = j.at("momentum"),
               .dampening = j.at("dampening"),
               .weight_decay = j.at("weight_decay"),
               .nesterov = j.at("nesterov"),
               .maximize = j.at("maximize")};
  validate(o);
  options_ = o;
}

}  // namespace hm::optim
