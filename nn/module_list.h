// ModuleList: an indexed list of child modules of one type, registered as "0", "1", ...
// (so a stack's parameters read "layers.3.self_attn.q_proj.weight", like PyTorch). Unlike
// Sequential it does not chain anything: the owner calls the layers with their own arguments.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "harmonic/nn/module.h"

namespace hm::nn {

template <class M>
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  std::shared_ptr<M> push_back(std::shared_ptr<M> module) {
    items_.push_back(register_module(std::to_string(items_.size()), std::move(module)));
    return items_.back();
  }
  int64_t size() const { return static_cast<int64_t>(items_.size()); }
  const std::shared_ptr<M>& operator[](int64_t i) const { return items_.at(static_cast<size_t>(i)); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<std::shared_ptr<M>> items_;
};

}  // namespace hm::nn
