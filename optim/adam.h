// Adam (L2 weight decay added to the gradient) and AdamW (decoupled decay p -= lr wd p before
// the Adam update), with torch.optim's exact updates: bias corrections, eps outside the
// square root, optional AMSGrad (the running max of the second moment normalises).
#pragma once
#include "harmonic/optim/optimizer.h"

namespace hm::optim {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  // Adam: L2 in the gradient; AdamW: decoupled. kDefault: PyTorch's default, 0 for Adam
  // and 1e-2 for AdamW.
  double weight_decay = kDefault;
  bool amsgrad = false;
  bool maximize = false;
};

class Adam : public Optimizer {
 public:
  Adam(Params params, AdamOptions options = {});
  const AdamOptions& options() const { return options_; }

 protected:
  Adam(std::string type_name, Params params, AdamOptions options, bool decoupled);
  void update(const ParamGroup& group, const std::vector<Entry>& entries, const DeviceSchedule& schedule) override;
  nlohmann::json options_json() const override;
  void load_options(const nlohmann::json& options) override;

 private:
  void validate(const AdamOptions& o) const;
  AdamOptions options_;
  bool decoupled_;
};

class AdamW : public Adam {
 public:
  AdamW(Params params, AdamOptions options = {});
};

}  // namespace hm::optim
