// Adam and AdamW: hyperparameter checks, lazily created moments, the multi-tensor kernel call.
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

void Adam::update(const ParamGroup& group, const std::vector<Entry>& entries, const DeviceSchedule& schedule) {
  AdamLists lists;
  for (const Entry& e : entries) {
    std::vector<Tensor>& b = e.state->buffers;
    for (Tensor& buffer : b)
      if (!buffer.defined()) buffer = zeros(e.param.shape(), {.dtype = e.param.dtype(), .device = e.param.device()});
    ++e.state->step;
    lists.params.push_back(e.param);
    lists.grads.push_back(e.grad);
    lists.exp_avg.push_back(b[0]);
    lists.exp_avg_sq.push_back(b[1]);
    if (options_.amsgrad) lists.max_exp_avg_sq.push_back(b[2]);
  }
  AdamStep s{.lr = group.lr,
             .beta1 = options_.beta1,
             .beta2 = options_.beta2,
             .eps = options_.eps,
             .weight_decay = group.weight_decay,
             .step = entries.front().state->step,  // one count per call unless capturable
             .decoupled = decoupled_,
             .amsgrad = options_.amsgrad,
             .maximize = options_.maximize};
  adam_kernel(entries.front().param.device(), lists, s, schedule);
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
