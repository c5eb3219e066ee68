// Stochastic gradient descent with momentum, dampening, Nesterov and L2 weight decay, with
// torch.optim.SGD's exact update (the momentum buffer starts as the first step's direction).
#pragma once
#include "harmonic/optim/optimizer.h"

namespace hm::optim {

struct SGDOptions {
  double lr = 1e-2;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;  // L2: added to the gradient
  bool nesterov = false;    // needs momentum > 0 and dampening 0
  bool maximize = false;
};

class SGD : public Optimizer {
 public:
  SGD(Params params, SGDOptions options = {});
  const SGDOptions& options() const { return options_; }

 protected:
  void update(const ParamGroup& group, const std::vector<Entry>& entries, const DeviceSchedule& schedule) override;
  nlohmann::json options_json() const override;
  void load_options(const nlohmann::json& options) override;

 private:
  void validate(const SGDOptions& o) const;
  SGDOptions options_;
};

}  // namespace hm::optim
