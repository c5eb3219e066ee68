#include "harmonic/tools/tasks/fourier_kernel_config.h"

#include <cmath>
#include <string>

#include "harmonic/core/error.h"

namespace hm::train {

nlohmann::json fourier_kernel_json(const nn::FourierKernelOptions& o) {
  return {{"fourier_p", o.p},
          {"fourier_r_init", o.r_init},
          {"fourier_r_per_dim", o.r_per_dim},
          {"fourier_eps", o.eps},
          {"fourier_log_r", o.log_r}};
}

nn::FourierKernelOptions fourier_kernel_from_json(const nlohmann::json& c, nn::FourierKernelOptions o) {
  o.p = c.value("fourier_p", o.p);
  o.r_init = c.value("fourier_r_init", o.r_init);
  o.r_per_dim = c.value("fourier_r_per_dim", o.r_per_dim);
  o.eps = c.value("fourier_eps", o.eps);
  o.log_r = c.value("fourier_log_r", o.log_r);
  return o;
}

std::vector<optim::ParamGroup> with_fourier_r_group(std::vector<optim::ParamGroup> groups, double r_lr,
                                                    const char* task) {
  check(std::isfinite(r_lr) && r_lr >= 0, task, "fourier_r_lr must be >= 0 (0: R at the task's lr), got {}", r_lr);
  if (r_lr == 0) return groups;
  optim::ParamGroup r_group;
  r_group.lr = r_lr;
  r_group.weight_decay = 0.0;
  for (optim::ParamGroup& g : groups) {
    check(g.names.size() == g.params.size(), task, "fourier_r_lr needs named parameters, got a group of {} for {} names",
          g.params.size(), g.names.size());
    optim::ParamGroup kept = g;
    kept.params.clear(), kept.names.clear();
    for (size_t i = 0; i < g.params.size(); ++i) {
      const std::string& name = g.names[i];
      const size_t dot = name.rfind('.');
      const std::string last = dot == std::string::npos ? name : name.substr(dot + 1);
      optim::ParamGroup& to = last == "R" || last == "log_R" ? r_group : kept;
      to.params.push_back(g.params[i]);
      to.names.push_back(name);
    }
    g = std::move(kept);
  }
  check(!r_group.params.empty(), task, "fourier_r_lr {} is set but the model has no Fourier bandwidth R", r_lr);
  groups.push_back(std::move(r_group));
  return groups;
}

}  // namespace hm::train
