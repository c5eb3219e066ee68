#include "harmonic/nn/sequential.h"

#include "harmonic/nn/activation.h"
#include "harmonic/nn/dropout.h"
#include "harmonic/nn/linear.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::nn {

Sequential::Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> modules) : Sequential() {
  for (const auto& m : modules) add(m);
}

Sequential& Sequential::add(std::shared_ptr<UnaryModule> module) {
  check(module != nullptr, "Sequential::add", "module {} is null", layers_.size());
  register_module(std::to_string(layers_.size()), module);
  layers_.push_back(std::move(module));
  return *this;
}

std::shared_ptr<UnaryModule> Sequential::at(int64_t i) const {
  int64_t n = size();
  check(i >= -n && i < n, "Sequential::at", "index {} out of range for {} modules", i, n);
  return layers_[static_cast<size_t>(i < 0 ? i + n : i)];
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& layer : layers_) y = layer->forward(y);
  return y;
}

Flatten::Flatten(int64_t start, int64_t end) : UnaryModule("Flatten"), start_dim(start), end_dim(end) {}

Tensor Flatten::forward(const Tensor& x) { return flatten(x, start_dim, end_dim); }

std::shared_ptr<Sequential> make_mlp(const std::vector<int64_t>& dims, const std::string& activation, double dropout,
                                     Generator* gen) {
  check(dims.size() >= 2, "make_mlp", "need at least 2 dims (in, out), got {}", dims.size());
  check(dropout >= 0.0 && dropout < 1.0, "make_mlp", "dropout must be in [0, 1), got {}", dropout);
  make_activation(activation);  // validate the name before building anything
  auto mlp = std::make_shared<Sequential>();
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    mlp->add(std::make_shared<Linear>(dims[i], dims[i + 1], true, gen));
    if (i + 2 == dims.size()) break;
    mlp->add(make_activation(activation));
    if (dropout > 0.0) mlp->add(std::make_shared<Dropout>(dropout, gen));
  }
  return mlp;
}

}  // namespace hm::nn
