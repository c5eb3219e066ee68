// The checks every multi-tensor optimizer kernel runs on its lists (optim/optim_kernels.h).
#include "harmonic/optim/optim_kernels.h"

namespace hm::optim {

void check_lists(std::string_view fn, const std::vector<const std::vector<Tensor>*>& lists,
                 const DeviceSchedule& schedule) {
  const std::vector<Tensor>& params = *lists.front();
  for (size_t l = 0; l < lists.size(); ++l)
    check(lists[l]->size() == params.size(), fn, "list {} has {} tensors, the parameter list {}", l, lists[l]->size(),
          params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const Tensor& p = params[k];
    const Tensor& first = params[0];
    check(p.defined(), fn, "parameter {} is undefined", k);
    HM_CHECK(p.device() == first.device() && p.dtype() == first.dtype(), fn,
             "one device and dtype per call: parameter 0 is {}, parameter {} is {}", first.desc(), k, p.desc());
    for (size_t l = 0; l < lists.size(); ++l) {
      const Tensor& t = (*lists[l])[k];
      check(t.defined(), fn, "list {} entry {} is undefined", l, k);
      HM_CHECK(t.shape() == p.shape() && t.dtype() == p.dtype() && t.device() == p.device() && t.is_contiguous(), fn,
               "list {} entry {} is {}{}, its parameter {}", l, k, t.desc(), t.is_contiguous() ? "" : " (strided)",
               p.desc());
    }
  }
  if (!schedule.defined()) return;
  check(schedule.slots.size() == params.size(), fn, "the schedule has {} slots for {} parameters",
        schedule.slots.size(), params.size());
  const Tensor& table = schedule.table;
  HM_CHECK(table.dtype() == DType::Float64 && table.dim() == 1 && table.is_contiguous() &&
               (params.empty() || table.device() == params[0].device()),
           fn, "the schedule table is {}, expected a contiguous (1 + parameters,) float64 tensor on {}", table.desc(),
           params.empty() ? std::string("the parameters' device") : params[0].device().str());
  for (size_t k = 0; k < params.size(); ++k)
    check(schedule.slots[k] >= 0 && schedule.slots[k] + 1 < table.numel(), fn,
          "schedule slot {} of entry {} is outside a table of {} values", schedule.slots[k], k, table.numel());
}

}  // namespace hm::optim
