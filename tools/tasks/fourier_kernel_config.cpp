#include "harmonic/tools/tasks/fourier_kernel_config.h"

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

}  // namespace hm::train
