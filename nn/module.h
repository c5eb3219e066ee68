// Module: the base of every layer. It owns named parameters, buffers and child modules, so
// a model's state has hierarchical names ("encoder.layers.3.attn.q.weight") and moves,
// saves and loads as one. Layers keep Tensor handles to what they register; the handles
// share the registered TensorImpl, so to(device) and load_state_dict update them in place.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::nn {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Module {
 public:
  explicit Module(std::string type_name = "Module") : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& type_name() const { return type_name_; }

  // -- traversal (depth first, registration order) ------------------------------------------
  NamedTensors named_parameters() const;
  std::vector<Tensor> parameters() const;
  NamedTensors named_buffers() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  int64_t num_parameters() const;  // total element count

  // -- modes and housekeeping ----------------------------------------------------------------
  void train(bool on = true);  // recursive
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad();
  void to(Device device);      // moves parameters and buffers in place
  void to(DType dtype);        // converts floating parameters and buffers in place
  Device device() const;       // where its first parameter or buffer lives (the CPU when it has none)

  // -- state ---------------------------------------------------------------------------------
  // Parameters then buffers, by hierarchical name.
  NamedTensors state_dict() const;
  // Copies values into the registered tensors. With strict, missing or unexpected names
  // are an error; a shape mismatch always is. The error lists every offending name.
  void load_state_dict(const NamedTensors& state, bool strict = true);
  void save(const std::string& path) const;  // safetensors, atomic
  void load(const std::string& path, bool strict = true);

  // One line per module with its parameter count (like printing a torch module).
  std::string summary() const;

  // -- surgery -------------------------------------------------------------------------------
  // Puts module in place of the direct child `name` (same name, same traversal position) and
  // updates the typed field the child was registered into, so the parent's forward calls the
  // new module (nn::apply_lora swaps Linears for LoRALinears this way). Only children
  // registered with a field (the three-argument register_module) can be replaced, and only
  // by a module the field's type accepts.
  void replace_module(const std::string& name, std::shared_ptr<Module> module);

 protected:
  // Registers a parameter (made a leaf that requires grad) and returns the handle to keep.
  Tensor register_parameter(const std::string& name, Tensor value, bool requires_grad = true);
  Tensor register_buffer(const std::string& name, Tensor value);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }
  // The same, also remembering the typed field that holds the child, so replace_module can
  // update it (field must be a member of this module: modules are neither copied nor moved).
  template <class M, class N>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M>& field, std::shared_ptr<N> module) {
    field = module;
    add_child(name, field);
    field_setters_[name] = [&field](const std::shared_ptr<Module>& m) {
      auto typed = std::dynamic_pointer_cast<M>(m);
      if (typed) field = typed;
      return typed != nullptr;
    };
    return field;
  }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void collect(const std::string& prefix, NamedTensors* params, NamedTensors* buffers) const;

  std::string type_name_;
  bool training_ = true;
  NamedTensors parameters_;
  NamedTensors buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  // child name -> sets the typed field to a replacement; false when its type does not fit
  std::map<std::string, std::function<bool(const std::shared_ptr<Module>&)>> field_setters_;
};

// A module with one tensor in and one out: what Sequential chains.
class UnaryModule : public Module {
 public:
  using Module::Module;
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }
};

}  // namespace hm::nn
