// SGD: hyperparameter checks and the multi-tensor kernel calls.
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

void SGD::update(const ParamGroup& group, const std::vector<Entry>& entries, const DeviceSchedule& schedule) {
  const SgdStep s{.lr = group.lr,
                  .momentum = options_.momentum,
                  .dampening = options_.dampening,
                  .weight_decay = group.weight_decay,
                  .nesterov = options_.nesterov,
                  .maximize = options_.maximize};
  // Two calls at most: parameters whose momentum buffer is new (it becomes the first
  // direction) and the others.
  std::vector<bool> is_first;
  for (const Entry& e : entries) is_first.push_back(options_.momentum != 0 && !e.state->buffers[0].defined());
  for (bool first : {true, false}) {
    SgdLists lists;
    DeviceSchedule part{schedule.table, {}};
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      Tensor& buffer = e.state->buffers[0];
      if (is_first[k] != first) continue;
      if (options_.momentum != 0) {
        if (!buffer.defined()) buffer = Tensor::empty(e.param.shape(), e.param.dtype(), e.param.device());
        lists.momentum_buffers.push_back(buffer);
      }
      lists.params.push_back(e.param);
      lists.grads.push_back(e.grad);
      if (schedule.defined()) part.slots.push_back(schedule.slots[k]);
      ++e.state->step;
    }
    if (lists.params.empty()) continue;
    SgdStep step = s;
    step.first = first;
    sgd_kernel(lists.params[0].device(), lists, step, part);
  }
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
