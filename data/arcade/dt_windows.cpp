#include "harmonic/data/arcade/dt_windows.h"

#include <algorithm>

#include "harmonic/core/error.h"
#include "harmonic/core/factories.h"
#include "harmonic/ops/elementwise.h"
#include "harmonic/ops/shape_ops.h"

namespace hm::arcade {

DecisionTransformerWindows::DecisionTransformerWindows(std::shared_ptr<const OfflineDataset> data, int64_t context)
    : data_(std::move(data)), context_(context) {
  check(data_ != nullptr && data_->size() > 0 && context >= 1, "DecisionTransformerWindows",
        "need a non-empty data set and context >= 1 (context {})", context);
  const int64_t n = data_->size();
  for (const Tensor* t : {&data_->observations, &data_->returns_to_go, &data_->actions, &data_->timesteps})
    HM_CHECK(t->is_contiguous() && t->device().is_cpu() && t->size(0) == n, "DecisionTransformerWindows",
             "the data set's tensors must be contiguous CPU tensors of {} rows; got {}", n, t->desc());
  const Tensor ts = data_->timesteps.contiguous(), dn = data_->dones.contiguous();
  const int64_t* t = ts.data<int64_t>();
  const bool* done = dn.data<bool>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t expected = (i == 0 || done[i - 1]) ? 0 : t[i - 1] + 1;
    check(t[i] == expected, "DecisionTransformerWindows", "timesteps[{}] is {}, expected {} (0 after each done)", i,
          t[i], expected);
  }
  check(done[n - 1], "DecisionTransformerWindows", "the last step ({}) does not end an episode", n - 1);
}

data::Example DecisionTransformerWindows::get(int64_t i) const {
  data::Batch b = get_batch({i});
  return {select(b.input, 0, 0), select(b.target, 0, 0)};
}

data::Batch DecisionTransformerWindows::get_batch(const std::vector<int64_t>& indices) const {
  const OfflineDataset& d = *data_;
  const int64_t n = d.size(), k = context_, f = d.observations.size(1), width = 3 + f;
  const int64_t b = static_cast<int64_t>(indices.size());
  check(b >= 1, "DecisionTransformerWindows::get_batch", "no indices");
  // Contiguous CPU tensors (checked by the constructor).
  const float* obs = d.observations.data<float>();
  const float* rtg = d.returns_to_go.data<float>();
  const int64_t* actions = d.actions.data<int64_t>();
  const int64_t* steps = d.timesteps.data<int64_t>();
  Tensor input = zeros({b, k, width}, {.dtype = DType::Float32});
  Tensor target = full({b, k}, static_cast<double>(kIgnoreAction), {.dtype = DType::Int64});
  float* in = input.data<float>();
  int64_t* tg = target.data<int64_t>();
  for (int64_t row = 0; row < b; ++row) {
    const int64_t i = indices[static_cast<size_t>(row)];
    check(i >= 0 && i < n, "DecisionTransformerWindows::get_batch", "index {} is outside 0..{}", i, n - 1);
    const int64_t real = std::min(k, steps[i] + 1);  // steps of the window inside i's episode
    const int64_t first = i - real + 1;
    for (int64_t j = 0; j < real; ++j) {
      const int64_t src = first + j, pos = k - real + j;
      float* cell = in + (row * k + pos) * width;
      cell[0] = rtg[src];
      cell[1] = static_cast<float>(steps[src]);
      cell[2] = 1.f;
      std::copy(obs + src * f, obs + (src + 1) * f, cell + 3);
      tg[row * k + pos] = actions[src];
    }
  }
  return {input, target};
}

DecisionTransformerBatch unpack_dt_batch(const data::Batch& batch) {
  const Tensor& in = batch.input;
  HM_CHECK(in.dim() == 3 && in.size(2) > 3 && in.dtype() == DType::Float32 && batch.target.dtype() == DType::Int64 &&
               batch.target.dim() == 2 && batch.target.size(0) == in.size(0) && batch.target.size(1) == in.size(1),
           "unpack_dt_batch", "input {} and target {}: need float32 (B, K, 3 + F) and int64 (B, K)", in.desc(),
           batch.target.desc());
  DecisionTransformerBatch out;
  out.returns_to_go = narrow(in, 2, 0, 1).contiguous();
  out.timesteps = select(in, 2, 1).to(DType::Int64);
  out.mask = select(in, 2, 2).contiguous();
  out.states = narrow(in, 2, 3, in.size(2) - 3).contiguous();
  out.targets = batch.target;
  // A device op, not a host loop: the batch may already be on the model's device.
  out.actions = masked_fill(batch.target, eq(batch.target, static_cast<double>(kIgnoreAction)), 0.0);
  return out;
}

}  // namespace hm::arcade
