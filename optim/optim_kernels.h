// Kernel slots of the fused optimizer updates and of gradient clipping (see core/dispatch.h).
// Each call takes lists of tensors of one device and one dtype (float32/float64), every
// tensor contiguous, and updates them all in one pass: one parallel region on the CPU
// (optim/cpu_kernels.cpp), a few multi-tensor launches on a GPU (cuda/optim.cu). Lists are
// checked by check_lists() (optim/optim_lists.cpp): mismatched devices, dtypes, shapes or
// lengths throw naming the function and the offending entry.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "harmonic/core/dispatch.h"
#include "harmonic/core/tensor.h"
#include "harmonic/optim/optim_functors.h"

namespace hm::optim {

// One SGD update of many parameters; momentum_buffers is empty when the step has no momentum.
struct SgdLists {
  std::vector<Tensor> params, grads, momentum_buffers;
};

// One Adam update of many parameters; max_exp_avg_sq is empty unless amsgrad.
struct AdamLists {
  std::vector<Tensor> params, grads, exp_avg, exp_avg_sq, max_exp_avg_sq;
};

// Capturable mode: a parameter group's lr and step counters in a float64 tensor on the
// lists' device, [lr, step of parameter 0, step of parameter 1, ...]; slots[k] is the
// parameter index of list entry k. The kernel takes lr there and step + 1 as the step it
// applies, and adds 1 to each listed counter afterwards, so a replayed CUDA graph sees the
// current values. Undefined `table`: the step's own lr and step are used.
struct DeviceSchedule {
  Tensor table;                // (1 + parameters,) float64
  std::vector<int32_t> slots;  // one per list entry
  bool defined() const { return table.defined(); }
};

// Throws unless the lists all have params' length and every tensor is defined, contiguous
// and has its parameter's shape, dtype and device (one device and one dtype for the list).
void check_lists(std::string_view fn, const std::vector<const std::vector<Tensor>*>& lists,
                 const DeviceSchedule& schedule);

inline Kernel<void(const SgdLists& lists, const SgdStep& s, const DeviceSchedule& schedule)> sgd_kernel{"sgd"};
inline Kernel<void(const AdamLists& lists, const AdamStep& s, const DeviceSchedule& schedule)> adam_kernel{"adam"};

// clip_grad_norm_, norm type 2 (optim/optim_functors.h has the summation order):
// total_sq[0] += sum over the list of (norm of grads[k], rounded to its dtype)^2.
// total_sq: (1,) float64 on the grads' device.
inline Kernel<void(const std::vector<Tensor>& grads, const Tensor& total_sq)> clip_norm_sq_kernel{"clip_norm_sq"};
// grads[k] *= T(clip_coefficient(max_norm, total[0])). total: (1,) float64, same device.
inline Kernel<void(const std::vector<Tensor>& grads, const Tensor& total, double max_norm)> clip_scale_kernel{
    "clip_scale"};

}  // namespace hm::optim
