// Data parallelism in the training loop: the ranks' common start and their per-step agreement.
#include "harmonic/core/factories.h"
#include "harmonic/nn/distributed/data_parallel.h"
#include "harmonic/tools/train/trainer.h"

namespace hm::train {

std::unique_ptr<dist::DataParallel> Trainer::start_data_parallel() {
  process_group->set_timeout(options_.dist_timeout);
  std::vector<Tensor> state;
  for (const auto& [name, t] : task_.model().state_dict()) state.push_back(t);
  dist::broadcast_tensors(*process_group, state, 0);
  return std::make_unique<dist::DataParallel>(
      params_, process_group,
      dist::DataParallelOptions{.bucket_mb = options_.ddp_bucket_mb, .overlap = options_.ddp_overlap});
}

bool Trainer::share_across_ranks(PendingStep& taken) {
  Tensor shared = Tensor::empty({2}, DType::Float64);
  // On the host (read_each_step_), or a replay's on the device: read after the step.
  shared.data<double>()[0] = taken.loss.defined() ? taken.loss.item<double>() : 0.0;
  shared.data<double>()[1] = stop_requested() ? 1.0 : 0.0;
  shared = shared.to(device_);  // the group's device (NCCL reduces CUDA tensors)
  process_group->all_reduce(shared, dist::ReduceOp::Sum);
  const std::vector<double> sums = shared.to(Device::cpu()).to_vector();
  taken.loss = scalar_tensor(sums[0], {.dtype = DType::Float64});
  return sums[1] > 0;
}

}  // namespace hm::train
