#include "harmonic/nn/activation.h"

namespace hm::nn {

std::shared_ptr<UnaryModule> make_activation(const std::string& name) {
  if (name == "relu") return std::make_shared<ReLU>();
  if (name == "gelu") return std::make_shared<GELU>();
  if (name == "gelu_tanh") return std::make_shared<GELU>(GeluApprox::Tanh);
  if (name == "silu" || name == "swish") return std::make_shared<SiLU>();
  if (name == "tanh") return std::make_shared<Tanh>();
  if (name == "sigmoid") return std::make_shared<Sigmoid>();
  if (name == "identity" || name == "none") return std::make_shared<Identity>();
  throw_error("make_activation",
              fmt::format("unknown activation '{}' (relu, gelu, gelu_tanh, silu, tanh, sigmoid, identity)", name));
}

}  // namespace hm::nn
