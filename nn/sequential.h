// Sequential: chains unary modules, registered as children "0", "1", ... so parameters are
// named like PyTorch's ("0.weight", "2.bias").
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "harmonic/core/random.h"
#include "harmonic/nn/module.h"

namespace hm::nn {

class Sequential : public UnaryModule {
 public:
  Sequential() : UnaryModule("Sequential") {}
  Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> modules);

  Sequential& add(std::shared_ptr<UnaryModule> module);
  // Constructs M(args...) in place, appends it and returns it.
  template <class M, class... Args>
  std::shared_ptr<M> emplace(Args&&... args) {
    auto m = std::make_shared<M>(std::forward<Args>(args)...);
    add(m);
    return m;
  }
  int64_t size() const { return static_cast<int64_t>(layers_.size()); }
  std::shared_ptr<UnaryModule> at(int64_t i) const;  // negative i counts from the back
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<std::shared_ptr<UnaryModule>> layers_;
};

// Flattens dims start..end (PyTorch nn.Flatten: default keeps the batch dim).
class Flatten : public UnaryModule {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& x) override;
  int64_t start_dim, end_dim;
};

// Linear(d0, d1), act, [Dropout], Linear(d1, d2), ..., Linear(d[n-2], d[n-1]): activation
// and dropout (when > 0) after every layer but the last. Activation names as make_activation.
std::shared_ptr<Sequential> make_mlp(const std::vector<int64_t>& dims, const std::string& activation = "relu",
                                     double dropout = 0.0, Generator* gen = nullptr);

}  // namespace hm::nn
