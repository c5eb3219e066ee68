// Adam and AdamW: hyperparameter checks, lazily created moments, the fused kernel call.
#include "harmonic/optim/adam.h"

#include <cmath>

#include "harmonic/core/factories.h"
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {

namespace {
std::vector<std::string> adam_buffers(bool amsgrad) {
  if (amsgrad) return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"exp_avg", "exp_avg_sq"};
}

AdamOptions with_default_decay(AdamOptions o, bool decoupled) {
  if (std::isnan(o.weight_decay)) o.weight_decay = decoupled ? 1e-2 : 0.0;
  return o;
}
}  // namespace

Adam::Adam(Params params, AdamOptions options) : Adam("Adam", std::move(params), options, false) {}

Adam::Adam(std::string type_name, Params params, AdamOptions options, bool decoupled)
    : Optimizer(std::move(type_name), std::move(params), options.lr,
                with_default_decay(options, decoupled).weight_decay, adam_buffers(options.amsgrad)),
      options_(with_default_decay(options, decoupled)),
      decoupled_(decoupled) {
  validate(options_);
}

AdamW::AdamW(Params params, AdamOptions options) : Adam("AdamW", std::move(params), options, true) {}

void Adam::validate(const AdamOptions& o) const {
  check_option(o.lr >= 0, "learning rate", o.lr, "must be >= 0");
  check_option(o.beta1 >= 0 && o.beta1 < 1, "beta1", o.beta1, "must be in [0, 1)");
  check_option(o.beta2 >= 0 && o.beta2 < 1, "beta2", o.beta2, "must be in [0, 1)");
  check_option(o.eps >= 0, "eps", o.eps, "must be >= 0");
  check_option(o.weight_decay >= 0, "weight_decay", o.weight_decay, "must be >= 0");
}

void Adam::update(const ParamGroup& group, const Tensor& param, const Tensor& grad, ParamState& state) {
  for (Tensor& b : state.buffers)
    if (!b.defined()) b = zeros(param.shape(), {.dtype = param.dtype(), .device = param.device()});
  ++state.step;
  AdamStep s{.lr = group.lr,
             .beta1 = options_.beta1,
             .beta2 = options_.beta2,
             .eps = options_.eps,
             .weight_decay = group.weight_decay,
             .step = state.step,
             .decoupled = decoupled_,
             .amsgrad = options_.amsgrad,
             .maximize = options_.maximize};
  adam_kernel(param.device(), param, grad, state.buffers[0], state.buffers[1],
              options_.amsgrad ? state.buffers[2] : Tensor(), s);
}

nlohmann::json Adam::options_json() const {
  return {{"lr", options_.lr},
          {"beta1", options_.beta1},
          {"beta2", options_.beta2},
          {"eps", options_.eps},
          {"weight_decay", options_.weight_decay},
          {"amsgrad", options_.amsgrad},
          {"maximize", options_.maximize}};
}

void Adam::load_options(const nlohmann::json& j) {
  AdamOptions o;
  o.lr = j.at("lr");
  o.beta1 = j.at("beta1");
  o.beta2 = j.at("beta2");
  o.eps = j.at("eps");
  o.weight_decay = j.at("weight_decay");
  o.amsgrad = j.at("amsgrad");
  o.maximize = j.at("maximize");
  check(o.amsgrad == options_.amsgrad, type_name(),
        "cannot load a state with amsgrad={} into an optimizer with amsgrad={}", o.amsgrad, options_.amsgrad);
  validate(o);
  options_ = o;
}

}  // namespace hm::optim
