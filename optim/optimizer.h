// Optimizer: the base of SGD, Adam and AdamW. It owns parameter groups (each with its own
// lr and weight decay, e.g. a no-decay group for biases and norm weights) and per-parameter
// state (a step counter and buffers such as Adam's moments, created lazily on the first
// update). step() updates every parameter that has a gradient in place, under no-grad: a
// group's parameters are split by (device, dtype, step count) and each part is one call of a
// multi-tensor kernel (optim/optim_kernels.h); the state saves and restores exactly, so a
// resumed run reproduces the uninterrupted one bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harmonic/core/tensor.h"

namespace hm::nn {
class Module;
}

namespace hm::optim {

struct DeviceSchedule;

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// "Use the optimizer's value" for a group's lr or weight decay.
inline constexpr double kDefault = std::numeric_limits<double>::quiet_NaN();

struct ParamGroup {
  std::vector<Tensor> params;      // leaf tensors; those without a gradient are skipped by step()
  std::vector<std::string> names;  // empty, or one per parameter (used in messages and checks)
  double lr = kDefault;            // kDefault: the optimizer's lr
  double weight_decay = kDefault;  // kDefault: the optimizer's weight decay
  double initial_lr = kDefault;    // the lr at construction; LRScheduler scales from it
};

// What an optimizer is built from: a list of tensors (one group), a module's named
// parameters (one group with names) or explicit groups.
struct Params {
  std::vector<ParamGroup> groups;
  Params(std::vector<Tensor> params);                                                    // NOLINT: implicit on purpose
  Params(std::initializer_list<Tensor> params) : Params(std::vector<Tensor>(params)) {}  // SGD({w, b})
  Params(const NamedTensors& named);                                                     // NOLINT
  Params(std::vector<ParamGroup> groups);                                                // NOLINT
};

// Decides that a named parameter gets no weight decay.
using NoDecayPredicate = std::function<bool(const std::string& name, const Tensor& param)>;

// The default rule (the minGPT/nanoGPT convention): biases (names ending in "bias"), 1-d
// parameters (norm gains, biases) and parameters of modules whose name contains "norm" or
// starts with "ln" (ln_1, ln_f) are not decayed; matrices and embeddings are.
bool default_no_decay(const std::string& name, const Tensor& param);

// Two groups over the module's trainable parameters, in module order: group 0 with
// `weight_decay`, group 1 with weight decay 0 (both kept even when one is empty, so group
// indices are stable). Frozen parameters (requires_grad false) are left out.
std::vector<ParamGroup> param_groups_no_decay(const nn::Module& module, double weight_decay,
                                              const NoDecayPredicate& no_decay = default_no_decay);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Updates every parameter that has a gradient, in place (bumping its version).
  void step();
  // Drops every parameter's gradient (like PyTorch's zero_grad(set_to_none=True)).
  void zero_grad();

  const std::string& type_name() const { return type_name_; }
  int64_t num_groups() const { return static_cast<int64_t>(groups_.size()); }
  const ParamGroup& group(int64_t i) const;
  double lr(int64_t group = 0) const;
  void set_lr(double lr);                   // every group
  void set_lr(int64_t group, double lr);    // one group
  int64_t steps() const { return steps_; }  // number of step() calls

  // -- capturable mode (torch.optim's capturable=True) -----------------------------------------
  // On: each group's lr and per-parameter step counters live in a (1 + parameters,) float64
  // tensor on the group's device, [lr, step 0, step 1, ...]; step() reads lr and the steps
  // there and advances the steps on the device, so a CUDA graph that captured step() sees
  // the current values when replayed; set_lr() writes the device value with a fill kernel (no
  // host wait). Call set_lr() outside a captured region and step() inside it. A group's
  // parameters must share one device. The updates equal the non-capturable ones bit for bit
  // on the CPU and the emulated device. Off: the steps are read back to the host.
  // Optimizer state (e.g. SGD's momentum buffers) is created at the first step, so take one
  // step before capturing.
  void set_capturable(bool on);
  bool capturable() const { return capturable_; }

  // -- state -----------------------------------------------------------------------------
  // Buffers by "group{g}.param{i}.{buffer}" (e.g. "group0.param3.exp_avg"), only those that
  // exist (a parameter never updated has none).
  NamedTensors state_tensors() const;
  // The type, hyperparameters, per-group lr/weight decay/initial lr/names, and per-parameter
  // step counters: everything besides the tensors.
  nlohmann::json state_json() const;
  // Restores both into this optimizer, built over the same parameters (same groups, counts
  // and shapes): hyperparameters and lrs are taken from the json (as PyTorch does), buffers
  // are copied into fresh tensors of each parameter's dtype and device. Mismatches throw
  // naming the offending group/parameter.
  void load_state(const NamedTensors& tensors, const nlohmann::json& state);
  // Both in one safetensors file (the json under the "optimizer" metadata key).
  void save(const std::string& path) const;
  void load(const std::string& path);

 protected:
  struct ParamState {
    int64_t step = 0;             // updates applied to this parameter
    std::vector<Tensor> buffers;  // one per buffer_names() entry, undefined until created
  };

  // Resolves kDefault lrs/weight decays and checks the groups: leaf float tensors, no
  // duplicates, names (when given) matching the parameter count, lr >= 0, weight decay >= 0.
  Optimizer(std::string type_name, Params params, double lr, double weight_decay,
            std::vector<std::string> buffer_names);

  // One parameter of a multi-tensor update: `param` and `grad` contiguous, same
  // shape/dtype/device; buffers already converted to the parameter's dtype and device.
  struct Entry {
    int32_t index;  // in the group
    Tensor param, grad;
    ParamState* state;
  };
  // Updates `entries` (one device and dtype; one step count unless schedule is defined, in
  // capturable mode) with the multi-tensor kernel; increments each state.step.
  virtual void update(const ParamGroup& group, const std::vector<Entry>& entries, const DeviceSchedule& schedule) = 0;
  // The optimizer-wide hyperparameters (betas, momentum, ...) as json, and back.
  virtual nlohmann::json options_json() const = 0;
  virtual void load_options(const nlohmann::json& options) = 0;

  // Throws "[type] invalid {what} {value} ({rule})" unless ok.
  void check_option(bool ok, const char* what, double value, const char* rule) const;

 private:
  std::string param_label(int64_t g, int64_t i) const;
  // The group's step counters: the host's, or the device table's in capturable mode.
  std::vector<int64_t> group_steps(size_t g) const;
  // Capturable mode: the device tables from the host's lrs and steps.
  void make_schedules();

  std::string type_name_;
  std::vector<ParamGroup> groups_;
  std::vector<std::vector<ParamState>> state_;  // [group][param]
  std::vector<std::string> buffer_names_;
  int64_t steps_ = 0;
  bool capturable_ = false;
  std::vector<Tensor> schedules_;  // capturable: per group, (1 + parameters,) float64 [lr, steps...]
};

}  // namespace hm::optim
